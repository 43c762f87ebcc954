import type { Command } from 'commander';
import { EVIDENCE_TOP_K } from '../../answer/answer-types.js';
import { globalOptions } from '../global-options.js';
import { positiveInt } from './parse-options.js';

interface ServeFlags {
  port: string;
  host: string;
  open?: boolean;
  topK?: string;
}

/** `serve`: the local web page (ask, search, TOC, reports, the cited PDF page) until Ctrl-C. */
export function registerServe(program: Command): Command {
  return program
    .command('serve')
    .description('open a local web page to ask questions, read the cited PDF pages, browse the TOC and eval reports')
    .option('--port <n>', 'TCP port', '8765')
    .option('--host <host>', 'interface to listen on (another than 127.0.0.1 exposes your books to the network)', '127.0.0.1')
    .option('--open', 'open the page in the default browser')
    .option('-k, --top-k <n>', 'evidence passages per question', String(EVIDENCE_TOP_K))
    .action(async (flags: ServeFlags, command: Command) => {
      const globals = globalOptions(command);
      const port = flags.port === '0' ? 0 : positiveInt('--port', flags.port, 8765);
      const topK = positiveInt('--top-k', flags.topK, EVIDENCE_TOP_K);
      const [{ loadConfig }, { startServer }, { createUi }, report] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../serve/run-serve.js'),
        import('../report/ui.js'),
        import('../report/serve.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      const server = await startServer({ root: globals.root, config, host: flags.host, port, topK });
      report.reportServing(ui, server, globals.root);
      if (flags.open) report.openInBrowser(ui, server.url);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await server.close();
      report.reportStopped(ui);
    });
}
