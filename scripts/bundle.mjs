// Bundles the compiled code (dist/src/, written by tsc) into dist/bundle/, which bin/exam-copilot.js runs.
//
// Why: Node 20's ES module loader costs each module a fraction of a millisecond, and one offline `ask` loads some 120
// of them; bundled into shared chunks (about 30 on an ask's path), an ask and `--version` each take about a tenth less
// wall time. The command modules stay lazily loaded: every
// dynamic import() stays a split point, so `--version` still loads only the CLI's wiring.
//
// The entries are the CLI's two (cli/main.js and indexing/load-faiss.js, which the launcher imports) and every
// module the code starts by URL (`new URL('./pdf-worker.js', import.meta.url)`: worker threads and child
// processes), each written under its own name in one flat folder, so those URLs resolve there as they do in
// dist/src/. Packages stay outside (native bindings, pdf.js's own files), loaded from node_modules as before.
// dist/bundle/meta.json is esbuild's metafile (paths relative to the repository): which compiled modules each bundled
// file holds.
//
// Usage: node scripts/bundle.mjs   (after tsc; `npm run build` runs both)
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const repoRoot = path.resolve(import.meta.dirname, '..');
const compiled = path.join(repoRoot, 'dist', 'src');
const outdir = path.join(repoRoot, 'dist', 'bundle');

/** Every .js file under a folder. */
function jsFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.join(e.parentPath, e.name));
}

// Modules started by URL, found where the code names them, relative to the module naming them.
const STARTED_BY_URL = /new URL\(\s*['"](\.\/[^'"]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g;
const entries = new Map([
  ['main', path.join(compiled, 'cli', 'main.js')],
  ['load-faiss', path.join(compiled, 'indexing', 'load-faiss.js')],
]);
let files;
try {
  files = jsFiles(compiled);
} catch {
  console.error(`bundle: ${compiled} not found; run tsc -p tsconfig.json first (npm run build runs both)`);
  process.exit(1);
}
for (const file of files) {
  for (const m of readFileSync(file, 'utf8').matchAll(STARTED_BY_URL)) {
    const target = path.resolve(path.dirname(file), m[1]);
    const name = path.basename(target, '.js');
    const taken = entries.get(name);
    if (taken !== undefined && taken !== target) {
      // One flat folder: two started modules of one name would resolve to the same file.
      console.error(
        `bundle: ${path.relative(repoRoot, file)} starts ${m[1]}, a name ${path.relative(repoRoot, taken)} has too; rename one`,
      );
      process.exit(1);
    }
    entries.set(name, target);
  }
}

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: repoRoot,
  entryPoints: Object.fromEntries(entries),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
const outputs = Object.keys(result.metafile.outputs).length;
console.log(`bundle: ${entries.size} entries, ${outputs} files in ${path.relative(repoRoot, outdir)}/`);
