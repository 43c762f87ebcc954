import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { RETRIEVAL_MODES, type RetrievalMode } from '../../retrieve/retriever.js';
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
  queries?: string;
  modes?: string;
  runDir?: string;
  reportJson?: string;
}

/** `search "<query>"`: ranked chunks with scores, metadata and a snippet; `search --queries <file>`: batch search with run files and metrics. */
export function registerSearch(program: Command): Command {
  return program
    .command('search')
    .description('show the chunks retrieval finds for a query, with scores and printed pages; or score a file of queries')
    .argument('[query...]', 'the question or keywords (quote it, or give several words)')
    .option('--mode <mode>', `retrieval mode: ${RETRIEVAL_MODES.join(', ')}`, 'hybrid')
    .option('-k, --top-k <n>', 'number of chunks to show (default 5; 10 with --queries)')
    .option('--book <name>', 'only this book (e.g. 上册)')
    .option('--chapter <text>', 'only chapters whose heading contains this text')
    .option('--pages <a-b>', 'only these printed pages, e.g. 12-30')
    .option('--type <type>', 'only this chunk type: text, manual_table_rewrite, note')
    .option('--neighbours <n>', 'expand each hit with n chunks before/after it in the same section')
    .option('--queries <file>', 'batch: a TSV, CSV or JSONL file of queries (query_id, query, optional relevant)')
    .option('--modes <list>', `batch: modes to run, comma-separated (default ${RETRIEVAL_MODES.join(',')})`)
    .option('--run-dir <dir>', 'batch: write one TREC run file per mode here (<name>.<mode>.trec)')
    .option('--report-json <file>', 'batch: write the metrics as JSON')
    .action(async (queryWords: string[], flags: SearchFlags, command: Command) => {
      const globals = globalOptions(command);
      if (flags.queries !== undefined) {
        if (queryWords.length > 0) throw new UsageError('give either a query or --queries <file>, not both');
        const modes = (flags.modes ?? RETRIEVAL_MODES.join(','))
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean)
          .map((m) => oneOf<RetrievalMode>('--modes', m, RETRIEVAL_MODES));
        if (modes.length === 0) throw new UsageError(`--modes needs at least one of ${RETRIEVAL_MODES.join(', ')}`);
        const k = positiveInt('--top-k', flags.topK, 10);
        const [{ loadConfig }, { runBatchSearch }, { createUi }, { reportBatchSearch }] = await Promise.all([
          import('../../config/load-config.js'),
          import('../../evaluate/run-batch-search.js'),
          import('../report/ui.js'),
          import('../report/search.js'),
        ]);
        const ui = createUi(globals);
        const { config, warnings } = loadConfig({ root: globals.root });
        for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
        const report = await runBatchSearch({
          root: globals.root,
          config,
          file: flags.queries,
          modes: [...new Set(modes)],
          k,
          ...(flags.runDir !== undefined ? { runDir: flags.runDir } : {}),
          ...(flags.reportJson !== undefined ? { reportJson: flags.reportJson } : {}),
        });
        reportBatchSearch(ui, report);
        return;
      }
      if (flags.modes !== undefined || flags.runDir !== undefined || flags.reportJson !== undefined) {
        throw new UsageError('--modes, --run-dir and --report-json need --queries <file>');
      }
      if (queryWords.length === 0)
        throw new UsageError('search needs a query, e.g. exam-copilot search "基金托管人的职责", or --queries <file>');
      const mode = oneOf('--mode', flags.mode, RETRIEVAL_MODES);
      const topK = positiveInt('--top-k', flags.topK, 5);
      const filter = chunkFilter(flags);
      const neighbours =
        flags.neighbours === undefined ? undefined : flags.neighbours === '0' ? 0 : positiveInt('--neighbours', flags.neighbours, 0);
      const [{ loadConfig }, { runSearch }, { createUi }, { reportSearch }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../retrieve/run-search.js'),
        import('../report/ui.js'),
        import('../report/search.js'),
      ]);
      const ui = createUi(globals);
      const { config, warnings } = loadConfig({ root: globals.root });
      for (const w of warnings) ui.warn(`${w.where}: ${w.message}`);
      const result = await runSearch({
        root: globals.root,
        config,
        query: queryWords.join(' '),
        mode,
        topK,
        filter,
        ...(neighbours !== undefined ? { neighbours } : {}),
      });
      reportSearch(ui, result);
    });
}
