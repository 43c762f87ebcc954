import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';
import { bundleFresh } from '../helpers/traced-modules.js';

/** The surface of bin/load-bundle.js this test uses. */
interface BundleLoader {
  CLI_BUNDLE: string;
  IMPORT_PACKAGE: string;
  wrapBundle(source: string): string;
  loadBundle(file: string): Record<string, unknown>;
}

const loader = (await import(pathToFileURL(path.join(repoRoot, 'bin', 'load-bundle.js')).href)) as BundleLoader;

describe("the CLI's bundle", () => {
  it('comes with a code cache this Node accepts for its source, and makes no import() of its own', (t) => {
    if (!bundleFresh()) {
      t.skip('dist/bundle/cli.cjs is older than dist/src/ (a bare tsc): run npm run build');
      return;
    }
    const file = path.join(repoRoot, 'dist', 'bundle', loader.CLI_BUNDLE);
    const source = readFileSync(file, 'utf8');
    const script = new Script(loader.wrapBundle(source), { filename: file, cachedData: readFileSync(`${file}.cache`) });
    assert.equal(script.cachedDataRejected, false, 'the cache was made from another source or by another V8: run npm run build');
    // Packages load through the launcher's import(): a script compiled by node:vm cannot call its own without a flag.
    assert.doesNotMatch(source, /\bimport\(/);
    assert.match(source, new RegExp(`\\b${loader.IMPORT_PACKAGE}\\(name\\)`));
  });

  it("runs a bundle whose cache does not fit, or is missing, from its source; packages load through the launcher's import()", async () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'cli.cjs');
      writeFileSync(
        file,
        [
          'exports.main = () => `ran as ${require("node:path").basename(__filename)} in ${require("node:path").basename(__dirname)}`;',
          'exports.applyFaissThreadDefaults = () => undefined;',
          `exports.join = () => ${loader.IMPORT_PACKAGE}("node:path").then((m) => m.join("a", "b"));`,
          'exports.relative = () => require("./other.cjs");',
        ].join('\n'),
      );
      writeFileSync(path.join(tmp.root, 'other.cjs'), 'module.exports = "required beside the bundle";');
      for (const cache of [null, Buffer.from('not a code cache')]) {
        if (cache) writeFileSync(`${file}.cache`, cache);
        const loaded = loader.loadBundle(file) as { main(): string; join(): Promise<string>; relative(): string };
        assert.equal(loaded.main(), `ran as cli.cjs in ${path.basename(tmp.root)}`);
        assert.equal(await loaded.join(), path.join('a', 'b'));
        assert.equal(loaded.relative(), 'required beside the bundle');
      }
    } finally {
      tmp.cleanup();
    }
  });
});
