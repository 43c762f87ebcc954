import type { Command } from 'commander';
import { RETRIEVAL_MODES } from '../../retrieve/retriever.js';
import { globalOptions } from '../global-options.js';
import { chunkFilter, oneOf, positiveInt } from './parse-options.js';

interface SearchFlags {
  mode: string;
  topK?: string;
  book?: string;
  chapter?: string;
  pages?: string;
  type?: string;
  neighbours?: string;
}

/** `search "<query>"`: ranked chunks with scores, metadata and a snippet. */
export function registerSearch(program: Command): Command {
  return program
    .command('search')
    .description('show the chunks retrieval finds for a query, with scores and printed pages')
    .argument('<query...>', 'the question or keywords (quote it, or give several words)')
    .option('--mode <mode>', `retrieval mode: ${RETRIEVAL_MODES.join(', ')}`, 'hybrid')
    .option('-k, --top-k <n>', 'number of chunks to show (default 5)')
    .option('--book <name>', 'only this book (e.g. 上册)')
    .option('--chapter <text>', 'only chapters whose heading contains this text')
    .option('--pages <a-b>', 'only these printed pages, e.g. 12-30')
    .option('--type <type>', 'only this chunk type: text, manual_table_rewrite, note')
    .option('--neighbours <n>', 'expand each hit with n chunks before/after it in the same section')
    .action(async (queryWords: string[], flags: SearchFlags, command: Command) => {
      const globals = globalOptions(command);
      const mode = oneOf('--mode', flags.mode, RETRIEVAL_MODES);
      const topK = positiveInt('--top-k', flags.topK, 5);
      const filter = chunkFilter(flags);
      const neighbours = flags.neighbours === undefined ? undefined : flags.neighbours === '0' ? 0 : positiveInt('--neighbours', flags.neighbours, 0);
      const [{ loadConfig }, { runSearch }, { createUi }, { reportSearch }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../retrieve/run-search.js'),
        import('../report/ui.js'),
        import('../report/search.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      const result = await runSearch({ root: globals.root, config, query: queryWords.join(' '), mode, topK, filter, ...(neighbours !== undefined ? { neighbours } : {}) });
      reportSearch(ui, result);
    });
}
