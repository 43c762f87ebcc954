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
    throw new UserError({
      file,
      problem: `cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      fix: 'reinstall exam-copilot',
    });
  }
  try {
    return new WebAssembly.Module(bytes);
  } catch (error) {
    throw new UserError({ file, problem: `not a usable WebAssembly module (${(error as Error).message})`, fix: 'reinstall exam-copilot' });
  }
}

/** Kernel modules compiled by file, once per process. */
const compiledKernels = new Map<string, WebAssembly.Module>();

/**
 * A shipped kernel module compiled once per process, once an instance of it is seen to export each of `names`; a
 * one-line `UserError` naming the file when it does not load or lacks one.
 */
export function loadKernelModule(file: string, what: string, names: readonly string[]): WebAssembly.Module {
  let module = compiledKernels.get(file);
  if (!module) {
    module = compileWasm(file, what);
    kernelExports(new WebAssembly.Instance(module).exports, file, names);
    compiledKernels.set(file, module);
  }
  return module;
}

/** An instance's exports as the kernel's functions `K`, or a `UserError` naming the file when one of `names` is missing. */
export function kernelExports<K>(exports: Record<string, unknown>, file: string, names: readonly string[]): K {
  for (const name of names) {
    if (typeof exports[name] !== 'function')
      throw new UserError({ file, problem: `has no ${name}`, fix: 'rebuild it with node scripts/build-wasm.mjs' });
  }
  return exports as unknown as K;
}
