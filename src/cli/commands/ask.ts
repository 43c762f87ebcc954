import type { Command } from 'commander';
import { UserError } from '../../errors.js';

/** `ask`: not implemented yet (issue #5); says so and exits 1. */
export function registerAsk(program: Command): Command {
  return program
    .command('ask')
    .description('ask (not available yet: issue #5)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new UserError('`ask` has not landed yet (issue #5); see the README for what works today');
    });
}
