import { readFileSync } from 'node:fs';
import { UserError } from '../errors.js';

/**
 * A shipped WebAssembly module (`what` names it in the message); a package installed without its `wasm/` folder (or
 * with a damaged one) says so on one line.
 */
export function compileWasm(file: string, what: string): WebAssembly.Module {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UserError(`${file}: cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? String(error)}); reinstall exam-copilot`);
  }
  try {
    return new WebAssembly.Module(bytes);
  } catch (error) {
    throw new UserError(`${file}: not a usable WebAssembly module (${(error as Error).message}); reinstall exam-copilot`);
  }
}
