import { readFile } from 'node:fs/promises';
import { UserError } from '../errors.js';

/**
 * Reads a file the user named on the command line. A missing or unreadable file is a one-line `UserError` naming the
 * file and what it was read as (`cannot read the queries (no such file); check the path`), never a stack trace.
 */
export async function readInputFile(file: string, what: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : (code ?? (error instanceof Error ? error.message : String(error)));
    throw new UserError(`${file}: cannot read ${what} (${reason}); check the path`);
  }
}
