import type { Command } from 'commander';
import { ANSWER_MODES, EVIDENCE_TOP_K, type AnswerMode } from '../../answer/answer-types.js';
import { ExitCode, UsageError } from '../../errors.js';
import { globalOptions } from '../global-options.js';
import { oneOf, positiveInt } from './parse-options.js';

interface AskFlags {
  options?: string;
  mode: string;
  topK?: string;
  rerank: boolean;
  cache: boolean;
  answerer?: string;
  showContext?: boolean;
  one?: boolean;
  agent?: boolean;
  tools?: string;
  showSteps?: boolean;
  guess?: boolean;
  verdicts: boolean;
}

/** `--options`: JSON `{"A":"…"}` / `["…","…"]`, or `A=…;B=…` / `A.… B.…` text. */
function parseOptionsFlag(value: string | undefined): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text.startsWith('{') || text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UsageError('--options: not valid JSON; use {"A":"…","B":"…"} or "A=…;B=…"');
    }
    if (Array.isArray(parsed)) return Object.fromEntries(parsed.map((v, i) => [String.fromCharCode(65 + i), String(v)]));
    if (typeof parsed === 'object' && parsed !== null) return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
    throw new UsageError('--options: expected an object {"A":"…"} or an array');
  }
  const pairs = text.split(/[;；\n]/).map((p) => /^\s*([A-Ha-h])\s*[=:：.、]\s*(.*)$/.exec(p));
  if (pairs.some((m) => m === null)) throw new UsageError('--options: use "A=…;B=…;C=…;D=…" or JSON {"A":"…"}');
  return Object.fromEntries(pairs.map((m) => [(m?.[1] ?? '').toUpperCase(), (m?.[2] ?? '').trim()]));
}

/** `ask [question]`: answer a question with evidence; REPL on a TTY, one question per line from a pipe. */
export function registerAsk(program: Command): Command {
  return program
    .command('ask')
    .description('answer an exam question with evidence from the indexed textbooks (offline answerer, or an LLM when configured)')
    .argument(
      '[question...]',
      'the question with its options, e.g. "下列…的是（ ）A.… B.… C.… D.…" (none: REPL on a terminal, or one question per line / JSONL from stdin)',
    )
    .option('--options <options>', 'options given separately: JSON {"A":"…","B":"…"} or "A=…;B=…"')
    .option('--mode <mode>', `retrieval mode: ${ANSWER_MODES.join(', ')} (baseline = LLM alone, no retrieval)`, 'hybrid')
    .option('-k, --top-k <n>', 'evidence passages per query', String(EVIDENCE_TOP_K))
    .option('--no-rerank', 'skip the LLM rerank of the recalled candidates')
    .option('--no-cache', 'do not read or write the LLM response cache')
    .option('--answerer <answerer>', 'offline or llm (default: llm when an endpoint is configured, else offline)')
    .option('--show-context', 'print the reranked passages the answer was made from')
    .option('--one', 'read the whole of stdin as one question')
    .option('--agent', 'let the LLM read the book with tools (TOC, search, read) before answering; needs an LLM (config answer.agent)')
    .option('--no-agent', 'answer in one shot even when answer.agent is set in the config')
    .option(
      '--tools <protocol>',
      'with --agent: native, simulated (text protocol for models without tool calls) or auto (config llm.tools)',
    )
    .option('--show-steps', 'with --agent: print the tool calls the agent made')
    .option('--no-verdicts', 'hide the per-option lines (why each option is right or wrong, with its clause)')
    .option('--guess', 'always give a letter: when no option is supported beyond chance, the best guess (marked as a guess)')
    .addHelpText(
      'after',
      `
Examples:
  exam-copilot ask "基金财产由（ ）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构"
  exam-copilot ask "下列说法错误的是" --options '{"A":"…","B":"…","C":"…","D":"…"}' --json
  cat questions.txt | exam-copilot ask --json      # questions end at a blank line or after their last option
  cat questions.jsonl | exam-copilot ask --json    # JSONL {"id","question","options"}: one output line per input line
  cat question.txt | exam-copilot ask --one        # the whole of stdin is one question
A question without options is answered as an open question (cited passages, no letter); an empty one is an error.`,
    )
    .action(async (words: string[], flags: AskFlags, command: Command) => {
      const globals = globalOptions(command);
      const mode = oneOf<AnswerMode>('--mode', flags.mode, ANSWER_MODES);
      const topK = positiveInt('--top-k', flags.topK, EVIDENCE_TOP_K);
      const answerer = flags.answerer === undefined ? undefined : oneOf('--answerer', flags.answerer, ['offline', 'llm'] as const);
      const options = parseOptionsFlag(flags.options);
      const question = words.join(' ');
      const showContext = flags.showContext === true;
      const toolsFlag = flags.tools === undefined ? undefined : oneOf('--tools', flags.tools, ['native', 'simulated', 'auto'] as const);
      const showSteps = flags.showSteps === true;
      const showVerdicts = flags.verdicts;
      // The reporter loads once there is an answer to print: a one-shot ask first starts its keyword thread (runAsk).
      const [{ loadConfig }, run, { createUi }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../answer/run-ask.js'),
        import('../report/ui.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      const base = {
        root: globals.root,
        config,
        mode,
        topK,
        rerank: flags.rerank,
        cache: flags.cache,
        ...(answerer ? { answerer } : {}),
        ...(flags.guess ? { guess: true } : {}),
      };
      // --agent / --no-agent win over the config's answer.agent.
      const agent = (flags.agent ?? config.answer.agent) ? await import('../../agent/run-agent-ask.js') : null;
      const agentOptions = { root: globals.root, config, topK, cache: flags.cache, tools: toolsFlag ?? config.llm?.tools ?? 'auto' };
      if (words.length > 0 || options) {
        const out = agent
          ? await agent.runAgentAsk({ ...agentOptions, question, ...(options ? { options } : {}) })
          : await run.runAsk({ ...base, showContext, question, ...(options ? { options } : {}) });
        (await import('../report/ask.js')).reportAsk(ui, out, { showContext, showSteps, showVerdicts });
        return;
      }
      // Questions from stdin or a prompt: the line reader loads only here, not for a question given as an argument.
      const input = await import('../ask-input.js');
      const session = agent ? await agent.openAgentSession(agentOptions) : await run.openAskSession(base);
      try {
        for (const w of session.warnings) ui.warn(`${w.where}: ${w.message}`);
        if (process.stdin.isTTY && flags.one !== true) {
          await input.askRepl(ui, session, { input: process.stdin, output: process.stderr }, { showContext, showVerdicts });
        } else {
          const { answered, failed } = await input.askFromPipe(ui, session, process.stdin, {
            showContext,
            showVerdicts,
            one: flags.one === true,
          });
          if (answered === 0 && failed === 0) throw new UsageError('no question: pass one as an argument, or pipe questions on stdin');
          if (failed > 0) process.exitCode = ExitCode.partial;
        }
      } finally {
        session.close();
      }
    });
}
