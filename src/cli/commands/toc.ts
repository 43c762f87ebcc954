import type { Command } from 'commander';
import { UserError } from '../../errors.js';

/** `toc`: not implemented yet (issue #4); says so and exits 1. */
export function registerToc(program: Command): Command {
  return program
    .command('toc')
    .description('toc (not available yet: issue #4)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new UserError('`toc` has not landed yet (issue #4); see the README for what works today');
    });
}
