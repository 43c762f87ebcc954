import path from 'node:path';
import type { Command } from 'commander';

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

/** Reads the global options from the root command, applying `EXAM_COPILOT_ROOT` and the current directory as defaults. */
export function globalOptions(command: Command): GlobalOptions {
  const raw = command.optsWithGlobals<RawGlobals>();
  const root = raw.root ?? process.env.EXAM_COPILOT_ROOT ?? process.cwd();
  return { root: path.resolve(root), json: raw.json === true, quiet: raw.quiet === true, verbose: raw.verbose === true };
}
