import type { Command } from 'commander';
import { UserError } from '../../errors.js';

/** `ingest`: not implemented yet (issue #3); says so and exits 1. */
export function registerIngest(program: Command): Command {
  return program
    .command('ingest')
    .description('ingest (not available yet: issue #3)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new UserError('`ingest` has not landed yet (issue #3); see the README for what works today');
    });
}
