#!/usr/bin/env node
// Postinstall: make faiss-node's native binding available without GitHub.
//
// faiss-node's own install script clones faiss from GitHub and builds it with cmake-js, which fails offline,
// so package.json denies it (`allowScripts`) and this script runs instead:
//   1. no faiss-node in node_modules (optional dependency skipped)  -> note, exit 0
//   2. the binding already loads                                    -> exit 0 (idempotent, fast)
//   3. faiss-node's prebuilt binary via prebuild-install (what users with internet get), short timeout
//   4. build faiss-node's src/*.cc against the system libfaiss (Debian: libfaiss-dev + libopenblas-dev)
//      with the node-gyp that ships inside npm, using the local Node headers (no header download)
//   5. anything else -> ONE line saying vector search uses the exact JS fallback and how to fix it; exit 0.
// Build output goes to node_modules/.cache/exam-copilot/faiss-build.log, never the terminal.
//
// Environment: EXAM_COPILOT_SKIP_FAISS_BUILD=1 skips steps 3-4 (simulates a machine without libfaiss);
// EXAM_COPILOT_SKIP_FAISS_DOWNLOAD=1 skips step 3 only; EXAM_COPILOT_FAISS_LIBS overrides the link libraries
// (default "-lfaiss -lopenblas -lgomp").
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = import.meta.dirname;
const projectRoot = path.resolve(here, '..');
const PREBUILT_TIMEOUT_MS = 60_000;
const BUILD_TIMEOUT_MS = 15 * 60_000;
const FIX = 'apt-get install libfaiss-dev libopenblas-dev && npm rebuild exam-copilot (or: node scripts/install-faiss.mjs)';

/** Resolves faiss-node the same way the app does (from this package), so hoisted installs work too. */
function findFaissNode() {
  const require = createRequire(path.join(projectRoot, 'package.json'));
  try {
    return path.dirname(require.resolve('faiss-node/package.json'));
  } catch {
    return null;
  }
}

const faissDir = findFaissNode();
if (!faissDir) {
  console.log('exam-copilot: faiss-node is not installed; vector search will use the exact JS fallback.');
  process.exit(0);
}

const cacheDir = path.join(path.dirname(faissDir), '.cache', 'exam-copilot');
const logFile = path.join(cacheDir, 'faiss-build.log');
mkdirSync(cacheDir, { recursive: true });

function log(text) {
  appendFileSync(logFile, text.endsWith('\n') ? text : `${text}\n`);
}

/** Runs a command with its output appended to the log; returns true on exit code 0. */
function run(label, command, args, options) {
  log(`\n$ (${label}) ${command} ${args.join(' ')}\n  cwd=${options.cwd}`);
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    timeout: options.timeout,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.stdout) log(result.stdout);
  if (result.stderr) log(result.stderr);
  if (result.error) log(`error: ${result.error.message}`);
  log(`exit: ${result.status ?? result.signal}`);
  return result.status === 0;
}

// Loads the binding in a child process and exercises add/search/serialise, so a binding that loads but
// crashes (e.g. built without RTTI, where write_index segfaults) is caught without killing this script.
const VERIFY = `
const f = require(${JSON.stringify(faissDir)});
const i = new f.IndexFlatIP(2); i.add([1, 0, 0, 1]);
const r = f.Index.fromBuffer(i.toBuffer()).search([0, 1], 1);
if (r.labels[0] !== 1) throw new Error('unexpected search result ' + JSON.stringify(r));
`;
function bindingWorks(label) {
  return run(`verify ${label}`, process.execPath, ['-e', VERIFY], { cwd: projectRoot, timeout: 60_000 });
}

function fallback(reason) {
  console.log(
    `exam-copilot: FAISS unavailable (${reason}); vector search will use the exact JS fallback. To enable FAISS: ${FIX}. Log: ${path.relative(process.cwd(), logFile) || logFile}`,
  );
  process.exit(0);
}

const bindingFile = path.join(faissDir, 'build', 'Release', 'faiss-node.node');
if (existsSync(bindingFile) && bindingWorks('existing')) process.exit(0);

writeFileSync(logFile, `exam-copilot install-faiss ${new Date().toISOString()} node ${process.version}\nfaiss-node at ${faissDir}\n`);
if (existsSync(bindingFile)) {
  log('existing binding does not work; removing it');
  rmSync(path.join(faissDir, 'build'), { recursive: true, force: true });
}

if (process.env.EXAM_COPILOT_SKIP_FAISS_BUILD === '1') fallback('EXAM_COPILOT_SKIP_FAISS_BUILD=1');

// Step 3: faiss-node's published prebuilt binary (needs GitHub; fails fast or times out offline).
if (process.env.EXAM_COPILOT_SKIP_FAISS_DOWNLOAD !== '1') {
  const faissRequire = createRequire(path.join(faissDir, 'package.json'));
  let prebuildBin = null;
  try {
    prebuildBin = faissRequire.resolve('prebuild-install/bin.js');
  } catch {
    log('prebuild-install not found; skipping the prebuilt download');
  }
  if (
    prebuildBin &&
    run('prebuilt download', process.execPath, [prebuildBin, '--runtime', 'napi', '--verbose'], {
      cwd: faissDir,
      timeout: PREBUILT_TIMEOUT_MS,
    })
  ) {
    if (bindingWorks('prebuilt')) process.exit(0);
    rmSync(path.join(faissDir, 'build'), { recursive: true, force: true });
  }
}

// Step 4: build from faiss-node's sources against the system libfaiss.
const includeDirs = ['/usr/include', '/usr/local/include', ...(process.env.CPATH ?? '').split(':').filter(Boolean)];
if (!includeDirs.some((dir) => existsSync(path.join(dir, 'faiss', 'Index.h')))) {
  log(`faiss/Index.h not found in ${includeDirs.join(', ')}`);
  fallback('libfaiss-dev is not installed');
}

function findNodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp, // set by npm for lifecycle scripts
    path.resolve(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
    '/usr/local/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  ];
  try {
    candidates.push(createRequire(path.join(projectRoot, 'package.json')).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not a dependency; fine
  }
  return candidates.find((c) => c && existsSync(c)) ?? null;
}

/** Local Node headers, so node-gyp never downloads them: <prefix>/include/node next to the running node. */
function findNodeDir() {
  const candidates = [process.env.npm_config_nodedir, path.resolve(path.dirname(process.execPath), '..'), '/usr', '/usr/local'];
  return candidates.find((dir) => dir && existsSync(path.join(dir, 'include', 'node', 'node_api.h'))) ?? null;
}

const nodeGyp = findNodeGyp();
if (!nodeGyp) fallback('node-gyp not found');
const nodeDir = findNodeDir();
if (!nodeDir) log('no local Node headers found; node-gyp will try to download them');

const faissRequire = createRequire(path.join(faissDir, 'package.json'));
let addonApiDir;
try {
  addonApiDir = path.dirname(faissRequire.resolve('node-addon-api/package.json'));
} catch {
  fallback('node-addon-api (a faiss-node dependency) is missing');
}
const sources = readdirSync(path.join(faissDir, 'src'))
  .filter((f) => f.endsWith('.cc'))
  .map((f) => path.join(faissDir, 'src', f));
if (sources.length === 0) fallback(`no C++ sources in ${path.join(faissDir, 'src')}`);

const buildDir = path.join(cacheDir, 'faiss-build');
rmSync(buildDir, { recursive: true, force: true });
mkdirSync(buildDir, { recursive: true });
let gyp = readFileSync(path.join(here, 'faiss', 'binding.gyp'), 'utf8')
  // gyp mangles absolute source paths into object-file paths, so sources are given relative to the build folder.
  .replace('@SOURCES@', sources.map((s) => JSON.stringify(path.relative(buildDir, s))).join(', '))
  .replace('@NODE_ADDON_API_DIR@', addonApiDir)
  .replace('@SHIM_HEADER@', path.join(here, 'faiss', 'faiss-compat.h'));
if (process.env.EXAM_COPILOT_FAISS_LIBS) {
  const libs = process.env.EXAM_COPILOT_FAISS_LIBS.split(/\s+/).filter(Boolean);
  gyp = gyp.replace('"-lfaiss", "-lopenblas", "-lgomp"', libs.map((l) => JSON.stringify(l)).join(', '));
}
writeFileSync(path.join(buildDir, 'binding.gyp'), gyp);

const started = Date.now();
const gypArgs = [nodeGyp, 'rebuild', '--release', `--jobs=max`];
if (nodeDir) gypArgs.push(`--nodedir=${nodeDir}`);
if (!run('source build', process.execPath, gypArgs, { cwd: buildDir, timeout: BUILD_TIMEOUT_MS })) {
  fallback('building the binding against the system libfaiss failed');
}
log(`build took ${((Date.now() - started) / 1000).toFixed(1)} s`);

mkdirSync(path.dirname(bindingFile), { recursive: true });
copyFileSync(path.join(buildDir, 'build', 'Release', 'faiss-node.node'), bindingFile);
if (!bindingWorks('source build')) {
  rmSync(path.join(faissDir, 'build'), { recursive: true, force: true });
  fallback('the built binding does not load');
}
rmSync(buildDir, { recursive: true, force: true });
console.log(`exam-copilot: built the FAISS binding against the system libfaiss in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
