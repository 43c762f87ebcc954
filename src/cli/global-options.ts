import path from 'node:path';
import type { Command } from 'commander';
import { assertRootFolder } from '../paths.js';

/** Options every subcommand understands, normalised once. */
export interface GlobalOptions {
  /** Absolute folder holding rawdoc/, data/ and index/. */
  root: string;
  /** Machine output only on stdout; logs go to stderr. */
  json: boolean;
  quiet: boolean;
  verbose: boolean;
}

interface RawGlobals {
  root?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

/**
 * Reads the global options from the root command, applying `EXAM_COPILOT_ROOT` and the current directory as
 * defaults. A root that is not an existing folder is a one-line error here, before any command creates files in it.
 */
export function globalOptions(command: Command): GlobalOptions {
  const raw = command.optsWithGlobals<RawGlobals>();
  const root = path.resolve(raw.root ?? process.env.EXAM_COPILOT_ROOT ?? process.cwd());
  assertRootFolder(root);
  return { root, json: raw.json === true, quiet: raw.quiet === true, verbose: raw.verbose === true };
}
