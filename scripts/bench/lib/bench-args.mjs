// The command line every benchmark shares: the repository root, `--name value` options, and the benchmark data folder
// (the first positional argument or `--bench DIR`, default ../shared/bench next to the repository), plus `--skip a,b`.
import path from 'node:path';

/** The repository root (scripts/bench/lib → ../../..). */
export const repo = path.resolve(import.meta.dirname, '..', '..', '..');

/** Parses a benchmark's arguments; `opt(name, fallback)` reads `--name value`. */
export function benchArgs(argv = process.argv.slice(2)) {
  const opt = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
  };
  // A value following an option (`-k 10`) is not positional.
  const positional = argv.filter((a, i) => !a.startsWith('-') && !(i > 0 && argv[i - 1].startsWith('-')));
  const bench = path.resolve(opt('--bench', positional[0] ?? path.join(repo, '..', 'shared', 'bench')));
  const skip = new Set(opt('--skip', '').split(',').filter(Boolean));
  return { args: argv, opt, positional, bench, skip };
}

/** Imports a compiled module of the project (`dist/`, built by `npx tsc -p tsconfig.json`). */
export function importDist(relative) {
  return import(path.join(repo, 'dist', relative));
}
