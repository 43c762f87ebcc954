import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ExitCode, UsageError } from '../../errors.js';
import { globalOptions } from '../global-options.js';

interface IngestFlags {
  force?: boolean;
  strict?: boolean;
  password?: string;
  ocr?: string;
}

const OCR_MODES = ['auto', 'always', 'never'] as const;

/** `ingest [paths...]`: parse textbooks, notes and table transcriptions into chunks and indexes. */
export function registerIngest(program: Command): Command {
  return program
    .command('ingest')
    .description('parse rawdoc/ (PDFs, .md/.txt notes, table_explain.csv) into data/ chunks and build index/')
    .argument('[paths...]', 'files or folders to ingest (default: everything in <root>/rawdoc/)')
    .option('--force', 'rebuild everything, even unchanged files')
    .option('--strict', 'stop at the first file that fails')
    .option('--password <password>', 'password for encrypted PDFs (or pdf.password / EXAM_COPILOT_PDF_PASSWORD)')
    .option('--ocr <mode>', 'OCR for scanned pages: auto (pages without a text layer), always, never (default: ingest.ocr, else auto)')
    .action(async (inputs: string[], flags: IngestFlags, command: Command) => {
      const globals = globalOptions(command);
      const paths = inputs.map((p) => path.resolve(globals.root, p));
      const missing = paths.filter((p) => !existsSync(p));
      if (missing.length > 0) throw new UsageError(`${missing.join(', ')}: no such file or folder`);
      const ocr = OCR_MODES.find((m) => m === flags.ocr);
      if (flags.ocr !== undefined && ocr === undefined) throw new UsageError(`--ocr ${flags.ocr}: use auto, always or never`);
      const [{ loadConfig }, { runIngest }, { createUi }, { reportIngest, ingestProgress }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../ingest/run-ingest.js'),
        import('../report/ui.js'),
        import('../report/ingest.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      const progress = ingestProgress(ui);
      let result;
      try {
        result = await runIngest({
          root: globals.root,
          config,
          ...(paths.length > 0 ? { paths } : {}),
          force: flags.force === true,
          strict: flags.strict === true,
          ...(flags.password !== undefined ? { password: flags.password } : {}),
          ...(ocr !== undefined ? { ocr } : {}),
          onProgress: progress.onProgress,
        });
      } catch (error) {
        progress.fail();
        throw error;
      }
      progress.done(result);
      reportIngest(ui, result);
      if (result.totals.failed > 0) process.exitCode = ExitCode.partial;
    });
}
