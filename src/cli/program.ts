import { Command, Option } from 'commander';
import { registerAnswer } from './commands/answer.js';
import { registerAsk } from './commands/ask.js';
import { registerCache } from './commands/cache.js';
import { registerDoctor } from './commands/doctor.js';
import { registerEval } from './commands/eval.js';
import { registerIngest } from './commands/ingest.js';
import { registerSearch } from './commands/search.js';
import { registerServe } from './commands/serve.js';
import { registerToc } from './commands/toc.js';

/** The commander tree. Wiring only: each command module lazy-imports its implementation in its action. */
export function buildProgram(): Command {
  const program = new Command('exam-copilot')
    .description('Answer certification-exam questions with evidence from your own textbooks (local-first).')
    .version('0.1.0')
    .addOption(
      new Option('--root <dir>', 'folder holding rawdoc/, data/ and index/ (env EXAM_COPILOT_ROOT)').default(
        undefined,
        'current directory',
      ),
    )
    .option('--json', 'machine-readable output on stdout; logs go to stderr')
    .option('-q, --quiet', 'only results and errors')
    .option('-v, --verbose', 'extra detail on stderr')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.configureHelp({ showGlobalOptions: true });
  for (const register of [
    registerIngest,
    registerSearch,
    registerToc,
    registerAsk,
    registerAnswer,
    registerEval,
    registerServe,
    registerDoctor,
    registerCache,
  ]) {
    register(program).exitOverride();
  }
  program.addHelpText(
    'after',
    `
Exit codes: 0 ok, 1 failure, 2 usage error, 3 partial (some inputs failed), 4 accuracy gate failed, 5 not ready (no index / stale index / an LLM needed but not configured; answer: the LLM failed on every question).
An LLM that fails on some questions is not an error: those get the offline answer, with a warning and their count.
Start with: exam-copilot ingest && exam-copilot ask "题目 A.… B.… C.… D.…"`,
  );
  return program;
}
