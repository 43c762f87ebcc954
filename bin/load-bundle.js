// Runs the CLI's bundle (dist/bundle/cli.cjs, written by scripts/bundle.mjs) as one CommonJS script, compiled with
// the V8 code cache the build wrote beside it: a parse of the whole file is what the bundle costs each process, and
// the cache skips it. A cache that does not fit this Node's V8 (or is missing) is set aside by V8, which then parses
// as usual; the program is the same either way.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

/** The bundle's file name in dist/bundle/; its code cache is this name plus `.cache`. */
export const CLI_BUNDLE = 'cli.cjs';

/** The name under which the bundle calls the launcher's import() of a package (scripts/bundle.mjs rewrites its calls). */
export const IMPORT_PACKAGE = '__importPackage';

/**
 * The source compiled for the bundle: CommonJS's module wrapper around it, with `IMPORT_PACKAGE` beside `require`.
 * The build makes the code cache of exactly this text, and V8 accepts a cache only for the source it was made from.
 */
export function wrapBundle(source) {
  return `(function (exports, require, module, __filename, __dirname, ${IMPORT_PACKAGE}) {${source}\n})`;
}

/** A package loaded as an ES module, as the bundle's own import() would load it (the package root's node_modules). */
const importPackage = (name) => import(name);

/** The bundle's exports: `main` and `applyFaissThreadDefaults`. */
export function loadBundle(file) {
  const source = readFileSync(file, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // No cache: compiled from the source alone.
  }
  const script = new Script(wrapBundle(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), importPackage);
  return module.exports;
}
