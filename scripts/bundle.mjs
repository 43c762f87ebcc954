// Bundles the compiled code (dist/src/, written by tsc) into dist/bundle/, which bin/exam-copilot.js runs.
//
// Why: Node 20's ES module loader costs each module a fraction of a millisecond (a resolution, an asynchronous file
// read, a link), and one offline `ask` loads some 120 compiled modules. The CLI is therefore one CommonJS file,
// dist/bundle/cli.cjs, holding every module of the CLI: esbuild keeps each module lazily evaluated (a dynamic
// import() becomes a call that runs the module's body the first time), and a package stays a require() that runs
// where the module first needs it, so `--version` still loads only the CLI's wiring and an offline ask loads neither
// the LLM client nor the web server. Read as one script, the file costs one parse; beside it, cli.cjs.cache holds V8's
// code cache of that parse, which the launcher hands back (a Node of another V8 rejects it and parses as usual). Paired
// against the ES module bundle of shared chunks it replaces, an offline ask on a 66k-unit library took 0.87x the wall
// time, and `--version` 1.11x (reading the file and its cache).
//
// Packages stay outside (native bindings, pdf.js's own files) and load from node_modules, except a package that only
// ships ES modules (Node 20.16 cannot require one): it is bundled in. The packages the CLI loads with import() (ora,
// exceljs and the optional OCR and embedding packages) stay import() calls.
//
// The modules the code starts by URL (`new URL('./pdf-worker.js', import.meta.url)`: worker threads and child
// processes) are ES module entries of their own, bundled with shared chunks, each written under its own name in the
// same flat folder, so those URLs resolve there as they do in dist/src/. dist/bundle/meta.json is esbuild's metafile
// of both builds (paths relative to the repository): which compiled modules each bundled file holds.
//
// Usage: node scripts/bundle.mjs   (after tsc; `npm run build` runs both)
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { build } from 'esbuild';
import { CLI_BUNDLE, IMPORT_PACKAGE, wrapBundle } from '../bin/load-bundle.js';

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
const entries = new Map();
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
const started = await build({
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

const requireHere = createRequire(path.join(repoRoot, 'package.json'));
/** Whether a package ships only ES modules: no CommonJS entry a `require` could load on Node 20.16. */
function esmOnly(name) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(requireHere.resolve(`${name}/package.json`), 'utf8'));
  } catch {
    // No package.json to read (an optional package not installed, or one that does not export it): left to Node.
    return false;
  }
  return manifest.type === 'module' && !JSON.stringify(manifest.exports ?? {}).includes('"require"');
}
/** A bare specifier's package name (`csv-parse/sync` → csv-parse, `@hono/node-server` → itself). */
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const packagesOutside = {
  name: 'packages-outside',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // Loaded with import() where they are needed (ES modules or not): they stay so.
      if (args.kind === 'dynamic-import') return { path: args.path, external: true };
      return esmOnly(packageName(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};
// The launcher's import() in place of the CLI's own (src/import-package.ts): see bin/load-bundle.js.
const launcherImport = {
  name: 'launcher-import',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]src[\\/]import-package\.js$/ }, () => ({
      contents: `export function importPackage(name) { return ${IMPORT_PACKAGE}(name); }`,
      loader: 'js',
    }));
  },
};
const cliFile = path.join(outdir, CLI_BUNDLE);
const cli = await build({
  absWorkingDir: repoRoot,
  stdin: {
    contents: [
      "export { main } from './dist/src/cli/main.js';",
      "export { applyFaissThreadDefaults } from './dist/src/indexing/load-faiss.js';",
    ].join('\n'),
    resolveDir: repoRoot,
    sourcefile: 'cli-entry.js',
  },
  outfile: cliFile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [packagesOutside, launcherImport],
  // A module's own URL and folder are the bundle's, beside which the modules started by URL were written above.
  define: { 'import.meta.url': '__bundleUrl', 'import.meta.dirname': '__dirname' },
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
  write: false,
  logLevel: 'warning',
});
const source = cli.outputFiles[0].text;
// Every import() of the CLI is the one in import-package.js, replaced above: a script node:vm compiles can call import()
// only through Node's experimental loader option, which warns on every command that uses it.
const leftOver = /\bimport\(/.exec(source);
if (leftOver) {
  const at = source.slice(0, leftOver.index).split('\n').length;
  console.error(`bundle: ${CLI_BUNDLE}:${at} calls import(); load a package through importPackage (src/import-package.ts)`);
  process.exit(1);
}
writeFileSync(cliFile, source);
// V8's code cache of the script the launcher compiles (bin/load-bundle.js), made by compiling it as the launcher does.
const cache = new Script(wrapBundle(source), { filename: cliFile }).createCachedData();
writeFileSync(`${cliFile}.cache`, cache);

const meta = {
  inputs: { ...started.metafile.inputs, ...cli.metafile.inputs },
  outputs: { ...started.metafile.outputs, ...cli.metafile.outputs },
};
writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(meta));
const outputs = Object.keys(started.metafile.outputs).length;
console.log(
  `bundle: ${path.relative(repoRoot, cliFile)} (${Math.round(source.length / 1024)} KB, code cache ${Math.round(cache.length / 1024)} KB); ` +
    `${entries.size} modules started by URL in ${outputs} files`,
);
