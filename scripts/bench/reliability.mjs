#!/usr/bin/env node
// Reliability suite: runs every group module in scripts/bench/reliability/*.mjs and prints one line per group
// (cases tried, held, failed), then the failures and the totals. Each module default-exports
// `async function run({ bench, tmp, cli })` returning `[{ group, tried, held, failed, failures: string[] }]`:
// `bench` is the benchmark data folder (or null: groups that need it report 0 tried), `tmp` a scratch folder of
// its own, `cli` the absolute path of bin/exam-copilot.js.
//
// Usage: npm run bench:reliability -- [bench-dir] [--only name,name] [--list]
//   bench-dir  default ../shared/bench relative to the repo, when it exists
//   --only     run only these modules (file names without .mjs), e.g. --only ingest,cli
// Needs a build (npm run build). Exit 1 when any case failed.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const positional = args.filter((a, i) => !a.startsWith('--') && !['--only'].includes(args[i - 1] ?? ''));
const fallback = path.join(repo, '..', 'shared', 'bench');
const bench = positional[0] ? path.resolve(positional[0]) : existsSync(fallback) ? fallback : null;
if (bench && !existsSync(bench)) {
  console.error(`no such folder: ${bench}`);
  process.exit(2);
}
const cli = path.join(repo, 'bin', 'exam-copilot.js');
if (!existsSync(path.join(repo, 'dist', 'src', 'cli', 'main.js'))) {
  console.error('no build: run `npm run build` (or npx tsc -p tsconfig.json) first');
  process.exit(2);
}
const only = flag('--only')
  ?.split(',')
  .map((s) => s.trim());
const groupsDir = path.join(repo, 'scripts', 'bench', 'reliability');
const modules = readdirSync(groupsDir)
  .filter((f) => f.endsWith('.mjs'))
  .sort()
  .filter((f) => !only || only.includes(f.replace(/\.mjs$/, '')));
if (args.includes('--list')) {
  console.log(modules.join('\n'));
  process.exit(0);
}

const results = [];
const started = Date.now();
for (const file of modules) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `exam-copilot-rel-${file.replace(/\.mjs$/, '')}-`));
  const t0 = Date.now();
  process.stderr.write(`reliability: ${file} …\n`);
  try {
    const { default: run } = await import(pathToFileURL(path.join(groupsDir, file)).href);
    const groups = await run({ bench, tmp, cli });
    for (const g of groups) results.push({ ...g, module: file });
  } catch (error) {
    // A module that throws is itself a failed case: the suite must never hide a crash.
    results.push({
      module: file,
      group: `${file} (crashed)`,
      tried: 1,
      held: 0,
      failed: 1,
      failures: [
        String(error?.stack ?? error)
          .split('\n')
          .slice(0, 3)
          .join(' | '),
      ],
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stderr.write(`reliability: ${file} done in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}

const width = Math.max(5, ...results.map((r) => r.group.length));
const line = (cells) =>
  `${cells[0].padEnd(width)}  ${cells
    .slice(1)
    .map((c) => String(c).padStart(6))
    .join('  ')}`;
console.log(line(['group', 'tried', 'held', 'failed']));
for (const r of results) console.log(line([r.group, r.tried, r.held, r.failed]));
const total = results.reduce((t, r) => ({ tried: t.tried + r.tried, held: t.held + r.held, failed: t.failed + r.failed }), {
  tried: 0,
  held: 0,
  failed: 0,
});
console.log(line(['total', total.tried, total.held, total.failed]));
const failing = results.filter((r) => r.failures.length > 0);
if (failing.length > 0) {
  console.log('\nfailures:');
  for (const r of failing) for (const f of r.failures.slice(0, 12)) console.log(`  ${r.group}: ${f}`);
}
console.log(
  `\n${results.length} groups from ${modules.length} modules in ${((Date.now() - started) / 1000).toFixed(0)} s; bench data: ${bench ?? 'none (groups that need it tried 0 cases)'}`,
);
process.exit(total.failed > 0 ? 1 : 0);
