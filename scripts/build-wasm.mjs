#!/usr/bin/env node
// Assembles each WebAssembly text file of wasm/ into the binary beside it, which the package ships and loads:
// dense-kernels.wat (the LSA fit's dense kernels), postings-kernels.wat (the keyword postings' sums and best rows)
// and scan-kernels.wat (the quantized vector scan). The binaries are
// committed so that installing the package needs no assembler; test/scripts/build-wasm.test.ts fails when one is not
// what this script makes of its text.
//
//   node scripts/build-wasm.mjs          rewrites every wasm/*.wasm
//   node scripts/build-wasm.mjs --check  exits 1 when a committed binary differs from its text's
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtModule from 'wabt';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The text files and the binaries made of them. */
export const MODULES = ['dense-kernels', 'postings-kernels', 'scan-kernels'].map((name) => ({
  wat: path.join(repo, 'wasm', `${name}.wat`),
  wasm: path.join(repo, 'wasm', `${name}.wasm`),
}));

/** The binary of the text file `wat` (SIMD and bulk memory on, no names section: the output depends on the text only). */
export async function assemble(wat) {
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
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const { wat, wasm } of MODULES) {
    const bytes = await assemble(wat);
    const name = path.relative(repo, wasm);
    if (check) {
      const same = Buffer.compare(bytes, readFileSync(wasm)) === 0;
      if (!same) stale++;
      console.log(same ? `${name} matches its text` : `${name} is stale: run node scripts/build-wasm.mjs`);
      continue;
    }
    writeFileSync(wasm, bytes);
    console.log(`wrote ${name} (${bytes.length} bytes)`);
  }
  if (stale > 0) process.exit(1);
}
