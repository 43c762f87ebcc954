#!/usr/bin/env node
// Assembles wasm/dense-kernels.wat (the LSA fit's dense kernels, in WebAssembly's text format) into
// wasm/dense-kernels.wasm, which the package ships and loads. The binary is committed so that installing the package
// needs no assembler; test/scripts/build-wasm.test.ts fails when it is not what this script makes of the text.
//
//   node scripts/build-wasm.mjs          rewrites wasm/dense-kernels.wasm
//   node scripts/build-wasm.mjs --check  exits 1 when the committed binary differs from the text's
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtModule from 'wabt';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WAT = path.join(repo, 'wasm', 'dense-kernels.wat');
export const WASM = path.join(repo, 'wasm', 'dense-kernels.wasm');

/** The binary of the text file `wat` (SIMD and bulk memory on, no names section: the output depends on the text only). */
export async function assemble(wat = WAT) {
  const wabt = await wabtModule();
  const parsed = wabt.parseWat(path.basename(wat), readFileSync(wat, 'utf8'), { simd: true, bulk_memory: true });
  try {
    parsed.validate();
    return Buffer.from(parsed.toBinary({ write_debug_names: false }).buffer);
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const bytes = await assemble();
  if (process.argv.includes('--check')) {
    const same = Buffer.compare(bytes, readFileSync(WASM)) === 0;
    console.log(
      same ? `${path.relative(repo, WASM)} matches its text` : `${path.relative(repo, WASM)} is stale: run node scripts/build-wasm.mjs`,
    );
    process.exit(same ? 0 : 1);
  }
  writeFileSync(WASM, bytes);
  console.log(`wrote ${path.relative(repo, WASM)} (${bytes.length} bytes)`);
}
