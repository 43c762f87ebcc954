import type { Command } from 'commander';
import { UserError } from '../../errors.js';

/** `search`: not implemented yet (issue #4); says so and exits 1. */
export function registerSearch(program: Command): Command {
  return program
    .command('search')
    .description('search (not available yet: issue #4)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new UserError('`search` has not landed yet (issue #4); see the README for what works today');
    });
}
