import type { Command } from 'commander';
import { UserError } from '../../errors.js';

/** `doctor`: not implemented yet (issue #2); says so and exits 1. */
export function registerDoctor(program: Command): Command {
  return program
    .command('doctor')
    .description('doctor (not available yet: issue #2)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new UserError('`doctor` has not landed yet (issue #2); see the README for what works today');
    });
}
