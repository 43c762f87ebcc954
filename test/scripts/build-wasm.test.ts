import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/temp-root.js';

/** The surface of scripts/build-wasm.mjs this test uses. */
interface BuildWasmScript {
  MODULES: { wat: string; wasm: string }[];
  assemble(wat: string): Promise<Buffer>;
}

const script = (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'build-wasm.mjs')).href)) as BuildWasmScript;

describe('wasm/*.wasm', () => {
  it('are what scripts/build-wasm.mjs assembles from their text (rebuild them after editing a .wat)', async () => {
    assert.deepEqual(
      script.MODULES.map((m) => path.basename(m.wasm)),
      ['dense-kernels.wasm', 'postings-kernels.wasm', 'scan-kernels.wasm'],
    );
    for (const { wat, wasm } of script.MODULES) {
      const built = await script.assemble(wat);
      assert.ok(built.length > 100, `${wat} assembled`);
      assert.ok(Buffer.compare(built, readFileSync(wasm)) === 0, `${wasm} is stale: run node scripts/build-wasm.mjs`);
    }
  });
});
