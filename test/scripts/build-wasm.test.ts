import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/temp-root.js';

/** The surface of scripts/build-wasm.mjs this test uses. */
interface BuildWasmScript {
  WAT: string;
  WASM: string;
  assemble(wat?: string): Promise<Buffer>;
}

const script = (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'build-wasm.mjs')).href)) as BuildWasmScript;

describe('wasm/dense-kernels.wasm', () => {
  it('is what scripts/build-wasm.mjs assembles from wasm/dense-kernels.wat (rebuild it after editing the text)', async () => {
    const built = await script.assemble();
    assert.ok(built.length > 100, 'the text assembled');
    assert.ok(Buffer.compare(built, readFileSync(script.WASM)) === 0, 'the committed binary is stale: run node scripts/build-wasm.mjs');
  });
});
