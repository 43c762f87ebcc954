import type { Command } from 'commander';
import { globalOptions } from '../global-options.js';

/** `cache [--clear]`: size of the LLM response cache, or empty it. */
export function registerCache(program: Command): Command {
  return program
    .command('cache')
    .description(
      'show the size of the LLM response cache (.exam-copilot/cache/llm.db: one-shot replies and agent turns), or empty it with --clear',
    )
    .option('--clear', 'delete every cached LLM reply and agent turn')
    .action(async (flags: { clear?: boolean }, command: Command) => {
      const globals = globalOptions(command);
      const [{ clearLlmCache, llmCacheStats }, { projectPaths }, { createUi }, { reportCache }] = await Promise.all([
        import('../../answer/llm-cache.js'),
        import('../../paths.js'),
        import('../report/ui.js'),
        import('../report/cache.js'),
      ]);
      const file = projectPaths(globals.root).llmCache;
      const cleared = flags.clear === true;
      const stats = cleared ? clearLlmCache(file) : llmCacheStats(file);
      reportCache(createUi(globals), { file, cleared, ...stats });
    });
}
