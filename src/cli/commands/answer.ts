import type { Command } from 'commander';
import { ANSWER_MODES, EVIDENCE_TOP_K, type AnswerMode } from '../../answer/answer-types.js';
import { ExitCode } from '../../errors.js';
import { globalOptions } from '../global-options.js';
import { oneOf, positiveInt } from './parse-options.js';

interface AnswerFlags {
  output?: string;
  mode: string;
  answerer?: string;
  agent?: boolean;
  topK?: string;
  concurrency?: string;
  resume?: boolean;
  cache: boolean;
}

/** `answer <file>`: answer a question-only set (the test set) and write the answers next to the questions. */
export function registerAnswer(program: Command): Command {
  return program
    .command('answer')
    .description(
      'answer every question of a CSV/XLSX question set (answers absent or partly given) and write them back beside the questions',
    )
    .argument('<file>', 'question set: CSV (UTF-8, BOM or GBK) or XLSX, with question and option columns as eval reads them')
    .option(
      '-o, --output <file>',
      'the answered copy: .xlsx (formatting kept), .csv (safe to open in Excel) or .jsonl; default <name>.answered.<ext>',
    )
    .option('--mode <mode>', `retrieval mode: ${ANSWER_MODES.join(', ')}`, 'hybrid')
    .option('--answerer <answerer>', 'offline or llm (default: llm when an endpoint is configured, else offline)')
    .option('--agent', 'answer through the agent (the LLM reading the book with tools); needs an LLM')
    .option('-k, --top-k <n>', 'evidence passages per question', String(EVIDENCE_TOP_K))
    .option('--concurrency <n>', 'questions in flight at once (LLM calls); default 1')
    .option('--resume', 'continue an interrupted run: reuse the rows already answered')
    .option('--no-cache', 'do not read or write the LLM response cache')
    .addHelpText(
      'after',
      '\nEvery readable row gets a letter: where the answerer abstains, its best guess, marked "guess" in the basis column.' +
        '\nExit codes: 0 answered (rows where the LLM failed get the offline answer, with a warning and their count; --resume asks' +
        ' them again); 3 some rows could not be read (kept, marked unreadable); 5 not ready (no index, --agent without an LLM, or' +
        ' the LLM failed on every question: the sheet is still written, with the offline answers); 1 could not run; 2 usage.',
    )
    .action(async (file: string, flags: AnswerFlags, command: Command) => {
      const globals = globalOptions(command);
      const mode = oneOf<AnswerMode>('--mode', flags.mode, ANSWER_MODES);
      const answerer = flags.answerer === undefined ? undefined : oneOf('--answerer', flags.answerer, ['offline', 'llm'] as const);
      const topK = positiveInt('--top-k', flags.topK, EVIDENCE_TOP_K);
      const concurrency = positiveInt('--concurrency', flags.concurrency, 1);
      const [{ loadConfig }, { runAnswerFile }, { createUi }, report] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../evaluate/run-answer-file.js'),
        import('../report/ui.js'),
        import('../report/answer.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      if (flags.agent && !config.llm) {
        const { NotReadyError } = await import('../../errors.js');
        throw new NotReadyError(
          'answer --agent needs an LLM endpoint: set EXAM_COPILOT_LLM_MODEL (and EXAM_COPILOT_LLM_BASE_URL / EXAM_COPILOT_LLM_API_KEY)',
        );
      }
      const progress = report.answerProgress(ui);
      let result;
      try {
        result = await runAnswerFile({
          root: globals.root,
          config,
          file,
          ...(flags.output ? { output: flags.output } : {}),
          mode,
          ...(answerer ? { answerer } : {}),
          agent: flags.agent === true,
          topK,
          concurrency,
          resume: flags.resume === true,
          cache: flags.cache,
          onProgress: progress.update,
        });
      } finally {
        progress.stop();
      }
      report.reportAnswerFile(ui, result);
      if (result.llmFailedAll) process.exitCode = ExitCode.notReady;
      else if (result.unreadable.length > 0) process.exitCode = ExitCode.partial;
    });
}
