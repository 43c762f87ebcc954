#!/usr/bin/env node
// Thin launcher: the compiled entry owns error handling and exit codes.
import { statSync } from 'node:fs';

// The bundle of the compiled code (dist/bundle/, `npm run build`), which Node loads several times faster than the
// ~120 modules of dist/src/, when it is at least as new as that code; after a bare `tsc` it is older, and the
// compiled code itself runs (the same program, unbundled), so a stale bundle never runs.
const since = (url) => {
  try {
    return statSync(new URL(url, import.meta.url)).mtimeMs;
  } catch {
    return -1;
  }
};
const bundled = since('../dist/bundle/main.js') >= since('../dist/src/cli/main.js');
const [{ applyFaissThreadDefaults }, { main }] = await Promise.all(
  bundled
    ? [import('../dist/bundle/load-faiss.js'), import('../dist/bundle/main.js')]
    : [import('../dist/src/indexing/load-faiss.js'), import('../dist/src/cli/main.js')],
);

// Process-wide settings belong to the process entry: FAISS's thread libraries read them when they load.
applyFaissThreadDefaults(process.env);

await main(process.argv);
