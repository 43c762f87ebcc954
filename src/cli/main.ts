import { CommanderError } from 'commander';
import { ExitCode, UserError } from '../errors.js';
import { buildProgram } from './program.js';
import { printable } from './report/printable.js';

/**
 * The single entry that owns error handling and `process.exit`. Commands set `process.exitCode` for
 * non-error outcomes (partial success, failed gate); thrown `UserError`s print one line, anything else a stack.
 */
export async function main(argv: readonly string[]): Promise<void> {
  // A reader that goes away (`--help | head`) makes the next write fail with EPIPE, reported as an 'error' event that,
  // unhandled, ends the process with a stack trace. Nothing more can be shown there; the command still finishes (an
  // ingest completes its build) and exits with its own code.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const code = await run(argv);
  // A pipe takes 64 KiB at once; the rest of a long output (`search --json | jq`, an ingest table piped to tee) waits
  // in the stream's queue, and exiting before it is written would cut the output there.
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // Native handles (onnxruntime, worker threads) can keep the loop alive after a command finished.
  process.exit(code);
}

/** Runs the command and returns its exit code, printing errors as the entry's contract says. */
async function run(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the message (or the help text).
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help'
        ? ExitCode.ok
        : ExitCode.usage;
    }
    if (error instanceof UserError) {
      // One line, whatever file names or titles the message quotes.
      process.stderr.write(`exam-copilot: ${printable(error.message)}\n`);
      return error.exitCode;
    }
    process.stderr.write(`exam-copilot: internal error; please report it with the command you ran\n`);
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return ExitCode.failure;
  }
}

/**
 * Resolves once everything written to `stream` so far has been handed to the system: an empty write's callback runs
 * after the writes queued before it. A reader that went away (`| head`) ends the wait with an error, which is fine.
 */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  return new Promise((resolve) => {
    // EPIPE ends the wait too (the reader is gone).
    stream.on('error', () => resolve());
    stream.write('', () => resolve());
  });
}
