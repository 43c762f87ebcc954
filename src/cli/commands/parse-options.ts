import { statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';

// The filter parsers live with retrieval so the web page validates filters exactly as the CLI does.
export { chunkFilter, pageRange } from '../../retrieve/parse-chunk-filter.js';

/** Parses a positive integer option, or fails with a usage error naming the option. */
export function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} needs a whole number above 0, got "${value}"`);
  return n;
}

/** Checks a value against a fixed list, for options like --mode. */
export function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** Resolves an output file option (`--report-json` …) against `cwd`; an existing folder there is a usage error. */
export function outputFile(name: string, value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  const file = path.resolve(cwd, value);
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    // Not there yet: it will be created.
  }
  if (isDirectory)
    throw new UsageError(`${name} ${file} is a folder; give the path of a file to write (a file inside that folder is fine)`);
  return file;
}
