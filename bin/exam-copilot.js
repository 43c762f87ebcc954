#!/usr/bin/env node
// Thin launcher: the compiled entry owns error handling and exit codes.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI_BUNDLE, loadBundle } from './load-bundle.js';

// The bundle of the compiled code (dist/bundle/, `npm run build`), which Node loads several times faster than the
// ~120 modules of dist/src/, when it is at least as new as that code; after a bare `tsc` it is older, and the
// compiled code itself runs (the same program, unbundled), so a stale bundle never runs.
const bundle = fileURLToPath(new URL(`../dist/bundle/${CLI_BUNDLE}`, import.meta.url));
const since = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
};
const compiledMain = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const { applyFaissThreadDefaults, main } =
  since(bundle) >= since(compiledMain)
    ? loadBundle(bundle)
    : await Promise.all([import('../dist/src/indexing/load-faiss.js'), import('../dist/src/cli/main.js')]).then(([faiss, cli]) => ({
        applyFaissThreadDefaults: faiss.applyFaissThreadDefaults,
        main: cli.main,
      }));

// Process-wide settings belong to the process entry: FAISS's thread libraries read them when they load.
applyFaissThreadDefaults(process.env);

await main(process.argv);
