import path from 'node:path';
import { Option, type Command } from 'commander';
import { EVAL_MODES, EVIDENCE_TOP_K } from '../../answer/answer-types.js';
import { ExitCode, UsageError } from '../../errors.js';
import { globalOptions } from '../global-options.js';
import { oneOf, outputFile, positiveInt } from './parse-options.js';

interface RawEvalOptions {
  modes?: string;
  answerer?: string;
  limit?: string;
  sample?: string;
  seed?: string;
  concurrency?: string;
  rps?: string;
  resume?: boolean;
  topK?: string;
  cache?: boolean;
  runDir?: string;
  reportJson?: string;
  reportMd?: string;
  junit?: string;
  predictions?: string;
  reportHtml?: string;
  failUnder?: string;
  compare?: string;
  maxDrop?: string;
  strictCompare?: boolean;
}

/** `eval <file>`: score a validation set in every mode, write reports, and gate accuracy for CI. */
export function registerEval(program: Command): Command {
  return program
    .command('eval')
    .description('answer a validation set (CSV/XLSX) and compare baseline, keyword, vector and hybrid accuracy')
    .argument('<file>', 'validation set: CSV (UTF-8, UTF-8 BOM or GBK) or XLSX with question, A-D and answer columns')
    .option(
      '--modes <list>',
      `comma-separated modes (${EVAL_MODES.join(',')}); default: every mode that can run except agent (the LLM reading with tools, only when named)`,
    )
    .addOption(new Option('--answerer <kind>', 'who answers: llm when configured, else offline').choices(['offline', 'llm']))
    .option('--limit <n>', 'only the first N questions')
    .option('--sample <n>', 'a random sample of N questions (deterministic with --seed)')
    .option('--seed <n>', 'seed for --sample', '1')
    .option('--concurrency <n>', 'questions in flight at once (LLM calls); default: the LLM config, 1 offline')
    .option('--rps <n>', 'at most N questions started per second (LLM rate limit)')
    .option('--resume', 'continue an interrupted run: reuse finished rows from the run files')
    .option('--top-k <n>', 'evidence chunks per question (as in ask) and K of evidence hit rate', String(EVIDENCE_TOP_K))
    .option('--no-cache', 'do not read or write the LLM response cache')
    .option(
      '--run-dir <dir>',
      'where per-mode run files (and their lock) go; default .exam-copilot/runs/<report>-<hash> for --report-json, else .exam-copilot/runs',
    )
    .option('--report-json <path>', 'write the JSON report')
    .option('--report-md <path>', 'write a Markdown report')
    .option('--junit <path>', 'write JUnit XML: one testcase per question per mode')
    .option('--predictions <path>', 'write a CSV with one row per question per mode')
    .option('--report-html <path>', 'write a self-contained HTML report with charts')
    .option('--fail-under <acc>', 'exit 4 when accuracy is below this: 0.6 for every mode, or hybrid=0.6,keyword=0.5')
    .option(
      '--compare <report.json>',
      'previous --report-json to compare with; the modes that ran in both are compared, and a file not there yet (a first run) is a warning',
    )
    .option('--max-drop <points>', 'with --compare: exit 4 when a mode lost more than this many accuracy points', '0')
    .option('--strict-compare', 'with --compare: a missing file is an error (exit 1) and a mode of it that did not run now fails the gate')
    .addHelpText(
      'after',
      '\nExit codes: 0 ran and passed any gate; 4 --fail-under or --max-drop failed; 1 could not run (unreadable dataset, bad --compare file, or a missing one with --strict-compare); 5 not ready (no index, no LLM for --answerer llm); 2 usage.\nCI recipe (GitHub Actions, offline and with an LLM): docs/ci.md.',
    )
    .action(async (file: string, raw: RawEvalOptions, command: Command) => {
      const globals = globalOptions(command);
      const { createUi } = await import('../report/ui.js');
      const ui = createUi(globals);
      const modes = raw.modes
        ?.split(',')
        .map((m) => m.trim())
        .filter((m) => m !== '')
        .map((m) => oneOf('--modes', m, EVAL_MODES));
      if (modes !== undefined && modes.length === 0) throw new UsageError('--modes needs at least one mode');
      const maxDrop = Number(raw.maxDrop ?? '0');
      if (!Number.isFinite(maxDrop) || maxDrop < 0)
        throw new UsageError(`--max-drop needs accuracy points ≥ 0 (e.g. 2), got "${raw.maxDrop ?? ''}"`);
      const seed = Number(raw.seed ?? '1');
      if (!Number.isInteger(seed)) throw new UsageError(`--seed needs a whole number, got "${raw.seed ?? ''}"`);
      const rps = raw.rps === undefined ? undefined : Number(raw.rps);
      if (rps !== undefined && (!Number.isFinite(rps) || rps <= 0))
        throw new UsageError(`--rps needs a number above 0, got "${raw.rps ?? ''}"`);
      const cwd = process.cwd();
      const abs = (p: string | undefined): string | undefined => (p === undefined ? undefined : path.resolve(cwd, p));
      const targets = {
        json: outputFile('--report-json', raw.reportJson, cwd),
        md: outputFile('--report-md', raw.reportMd, cwd),
        junit: outputFile('--junit', raw.junit, cwd),
        predictions: outputFile('--predictions', raw.predictions, cwd),
        html: outputFile('--report-html', raw.reportHtml, cwd),
      };
      // Run files and the run lock are the tool's state, not something a reader opens: by default they go under
      // .exam-copilot/runs/ (a folder per --report-json, so eval --resume with the same report finds them), never into
      // the report folder that serve lists.
      const { defaultRunDir } = await import('../../evaluate/run-files.js');
      const runDir = abs(raw.runDir) ?? (targets.json ? defaultRunDir(globals.root, targets.json) : undefined);

      const { parseFailUnder, runGate } = await import('../../evaluate/gate.js');
      const failUnder = raw.failUnder === undefined ? undefined : parseFailUnder(raw.failUnder);
      const { loadPreviousReport } = await import('../../evaluate/previous-report.js');
      // Read the baseline report before spending time on answers: a bad --compare file means the gate cannot run.
      // Without --strict-compare a file that is not there yet is the first run of a CI job: nothing to compare with.
      const compareFile = raw.compare === undefined ? undefined : path.resolve(cwd, raw.compare);
      const strict = raw.strictCompare === true;
      if (strict && compareFile === undefined) throw new UsageError('--strict-compare needs --compare <report.json>');
      const previous =
        compareFile === undefined
          ? undefined
          : strict
            ? loadPreviousReport(compareFile)
            : loadPreviousReport(compareFile, { missingOk: true });
      const { loadConfig } = await import('../../config/load-config.js');
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      if (compareFile !== undefined && previous === null) {
        const next = targets.json === compareFile ? 'this run writes it' : "a --report-json of this run can be the next run's";
        ui.warn(`--compare ${compareFile}: no previous report there yet (first run?); accuracy is not compared this time (${next})`);
      }

      const { runEval } = await import('../../evaluate/run-eval.js');
      const { writeReports } = await import('../../evaluate/write-reports.js');
      const { evalProgress, reportEval } = await import('../report/eval.js');
      const progress = evalProgress(ui, file);
      let report;
      try {
        report = await runEval({
          root: globals.root,
          config,
          file,
          ...(modes ? { modes } : {}),
          ...(raw.answerer ? { answerer: raw.answerer as 'offline' | 'llm' } : {}),
          ...(raw.limit !== undefined ? { limit: positiveInt('--limit', raw.limit, 1) } : {}),
          ...(raw.sample !== undefined ? { sample: positiveInt('--sample', raw.sample, 1), seed } : {}),
          ...(raw.concurrency !== undefined ? { concurrency: positiveInt('--concurrency', raw.concurrency, 1) } : {}),
          ...(rps !== undefined ? { ratePerSecond: rps } : {}),
          resume: raw.resume === true,
          topK: positiveInt('--top-k', raw.topK, EVIDENCE_TOP_K),
          noCache: raw.cache === false,
          ...(runDir ? { runDir } : {}),
          onProgress: progress.onProgress,
        });
      } finally {
        progress.stop();
      }
      const gated = failUnder !== undefined || compareFile !== undefined;
      const gate = runGate(report, {
        ...(failUnder ? { failUnder } : {}),
        ...(previous ? { previous, maxDropPoints: maxDrop, strict } : {}),
      });
      const written = writeReports(report, targets, gated ? gate : undefined);
      reportEval(ui, report, { violations: gate.violations, notCompared: gate.notCompared, written, gated });
      if (gate.violations.length > 0) process.exitCode = ExitCode.regression;
    });
}
