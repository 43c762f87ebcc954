import type { Command } from 'commander';
import { ExitCode } from '../../errors.js';
import { globalOptions } from '../global-options.js';

/** `doctor`: checks the installation, the index and the LLM endpoint, one line each. */
export function registerDoctor(program: Command): Command {
  return program
    .command('doctor')
    .description('check Node, SQLite/FTS5, FAISS, jieba, onnxruntime, the index and the LLM endpoint')
    .action(async (_options: unknown, command: Command) => {
      const globals = globalOptions(command);
      const [{ loadConfig }, { runDoctor }, { createUi }, { reportDoctor }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../doctor/run-doctor.js'),
        import('../report/ui.js'),
        import('../report/doctor.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      const report = await runDoctor({ root: globals.root, config });
      reportDoctor(ui, report);
      if (!report.ok) process.exitCode = ExitCode.failure;
    });
}
