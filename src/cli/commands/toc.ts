import type { Command } from 'commander';
import { globalOptions } from '../global-options.js';

/** `toc`: the outline recovered at ingest, with printed pages. */
export function registerToc(program: Command): Command {
  return program
    .command('toc')
    .description('print the table of contents recovered at ingest, with printed pages')
    .option('--book <name>', 'only this book')
    .action(async (flags: { book?: string }, command: Command) => {
      const globals = globalOptions(command);
      const [{ runToc }, { createUi }, { reportToc }] = await Promise.all([
        import('../../retrieve/run-toc.js'),
        import('../report/ui.js'),
        import('../report/toc.js'),
      ]);
      const ui = createUi(globals);
      reportToc(ui, runToc({ root: globals.root, ...(flags.book ? { book: flags.book } : {}) }));
    });
}
