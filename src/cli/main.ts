import { CommanderError } from 'commander';
import { ExitCode, UserError } from '../errors.js';
import { buildProgram } from './program.js';
import { printable } from './report/printable.js';

/**
 * The single entry that owns error handling and `process.exit`. Commands set `process.exitCode` for
 * non-error outcomes (partial success, failed gate); thrown `UserError`s print one line, anything else a stack.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the message (or the help text).
      const code =
        error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help'
          ? ExitCode.ok
          : ExitCode.usage;
      process.exit(code);
    }
    if (error instanceof UserError) {
      // One line, whatever file names or titles the message quotes.
      process.stderr.write(`exam-copilot: ${printable(error.message)}\n`);
      process.exit(error.exitCode);
    }
    process.stderr.write(`exam-copilot: internal error; please report it with the command you ran\n`);
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(ExitCode.failure);
  }
  // Native handles (onnxruntime, worker threads) can keep the loop alive after a command finished.
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok);
}
