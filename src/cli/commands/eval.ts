import type { Command } from 'commander';
import { UserError } from '../../errors.js';

/** `eval`: not implemented yet (issue #6); says so and exits 1. */
export function registerEval(program: Command): Command {
  return program
    .command('eval')
    .description('eval (not available yet: issue #6)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new UserError('`eval` has not landed yet (issue #6); see the README for what works today');
    });
}
