// Reliability groups for ingest: symlink loops, failed files keep their chunks, concurrent ingests, stale-lock
// takeover races, SIGKILL during ingest, hostile PDFs. Every case runs the real CLI on a scratch root.
// RELIABILITY_ROUNDS scales the race groups (1: 4 rounds of 6 concurrent ingests, 8 takeover rounds of 4).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  consistent,
  errLines,
  hasStack,
  makePdf,
  makeRoot,
  NOTE_A,
  NOTE_B,
  readChunks,
  runCli,
  tally,
  zeroPagePdf,
} from './lib/fixtures.mjs';

const rounds = Number(process.env.RELIABILITY_ROUNDS ?? '1');
// The crash tests' pause hook (test/helpers/pause-at.ts, built by tsc): loaded with --import, it stops a run at a point.
const PAUSE_HOOK = pathToFileURL(path.resolve(import.meta.dirname, '..', '..', '..', 'dist', 'test', 'helpers', 'pause-at.js')).href;

async function symlinkLoops({ tmp, cli }) {
  const t = tally('ingest: symlink loops');
  const outside = path.join(tmp, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, 'far.md'), NOTE_B);
  const cases = [
    ['link to the folder itself (again -> .)', (raw) => symlinkSync('.', path.join(raw, 'again')), { sources: ['rawdoc/a.md'] }],
    ['link to the parent (up -> ..)', (raw) => symlinkSync('..', path.join(raw, 'up')), { sources: ['rawdoc/a.md'] }],
    [
      'nested loop (sub/back -> ../..)',
      (raw) => {
        mkdirSync(path.join(raw, 'sub'));
        symlinkSync('../..', path.join(raw, 'sub', 'back'));
      },
      { sources: ['rawdoc/a.md'] },
    ],
    [
      'second path to one file (alias.md -> a.md)',
      (raw) => symlinkSync('a.md', path.join(raw, 'alias.md')),
      { sources: ['rawdoc/a.md'], warn: /alias\.md.*same file/ },
    ],
    [
      'two links to one folder',
      (raw) => {
        mkdirSync(path.join(raw, 'real'));
        writeFileSync(path.join(raw, 'real', 'b.md'), NOTE_B);
        symlinkSync('real', path.join(raw, 'x1'));
        symlinkSync('real', path.join(raw, 'x2'));
      },
      { sources: ['rawdoc/a.md', 'rawdoc/real/b.md'] },
    ],
    [
      'file link cycle (p.md -> q.md -> p.md)',
      (raw) => {
        symlinkSync('q.md', path.join(raw, 'p.md'));
        symlinkSync('p.md', path.join(raw, 'q.md'));
      },
      { sources: ['rawdoc/a.md'] },
    ],
    [
      'link leaving the root',
      (raw) => symlinkSync(outside, path.join(raw, 'elsewhere')),
      { sources: ['rawdoc/a.md', 'rawdoc/elsewhere/far.md'], warn: /elsewhere.*outside the root/ },
    ],
  ];
  for (const [i, [name, setup, want]] of cases.entries()) {
    await t.check(name, async () => {
      const root = makeRoot(path.join(tmp, `links-${i}`), { 'a.md': NOTE_A });
      setup(path.join(root, 'rawdoc'));
      const r = await runCli(cli, ['--root', root, 'ingest'], { timeoutMs: 60_000 });
      if (r.timedOut) return 'ingest did not finish within 60 s';
      if (r.code !== 0 && r.code !== 3) return `exit ${r.code}: ${errLines(r).slice(-1)[0] ?? ''}`;
      const sources = [...new Set(readChunks(root).map((c) => c.source))].sort();
      if (JSON.stringify(sources) !== JSON.stringify(want.sources))
        return `indexed ${sources.length} sources (${sources.slice(0, 3).join(', ')}…), expected ${want.sources.join(', ')}`;
      const texts = readChunks(root).map((c) => c.text);
      if (new Set(texts).size !== texts.length) return 'the same text was indexed more than once';
      if (want.warn && !want.warn.test(r.stderr)) return `no warning matching ${want.warn}`;
      return true;
    });
  }
  return t.result;
}

async function failedFilesKeepChunks({ tmp, cli }) {
  const t = tally('ingest: failed files keep chunks');
  const good = path.join(tmp, 'good.pdf');
  await makePdf(good, [
    'Chapter 1 Funds',
    'A fund is a pool of money managed for investors.',
    'The custodian keeps the assets of the fund safe.',
  ]);
  const locked = path.join(tmp, 'locked.pdf');
  await makePdf(locked, ['Chapter 1 Funds', 'A fund is a pool of money managed for investors.'], {
    userPassword: 'secret',
    ownerPassword: 'owner',
  });
  const bytes = readFileSync(good);
  const breakages = [
    ['truncated download', () => bytes.subarray(0, 400)],
    ['password added', () => readFileSync(locked)],
    ['emptied (0 bytes)', () => Buffer.alloc(0)],
    ['replaced by junk', () => Buffer.from('<html>404 not found</html>')],
    ['replaced by a PDF with no pages', () => Buffer.from(zeroPagePdf())],
  ];
  for (const [i, [name, broken]] of breakages.entries()) {
    await t.check(`book.pdf ${name}`, async () => {
      const root = makeRoot(path.join(tmp, `keep-${i}`), { 'notes.md': NOTE_A });
      copyFileSync(good, path.join(root, 'rawdoc', 'book.pdf'));
      const first = await runCli(cli, ['--root', root, 'ingest']);
      if (first.code !== 0) return `first ingest exit ${first.code}`;
      const before = readChunks(root).filter((c) => c.source === 'rawdoc/book.pdf');
      if (before.length === 0) return 'the good PDF gave no chunks';
      writeFileSync(path.join(root, 'rawdoc', 'book.pdf'), broken());
      writeFileSync(path.join(root, 'rawdoc', 'notes.md'), `${NOTE_A}\n${NOTE_B}`);
      const r = await runCli(cli, ['--root', root, 'ingest']);
      if (r.code !== 3) return `exit ${r.code}, expected 3 (partial)`;
      const after = readChunks(root).filter((c) => c.source === 'rawdoc/book.pdf');
      if (JSON.stringify(after) !== JSON.stringify(before)) return `book.pdf had ${before.length} chunks, now ${after.length}`;
      if (!/kept the previous version of rawdoc\/book\.pdf/.test(r.stderr)) return 'no "kept the previous version" warning';
      if (!consistent(root)) return 'index inconsistent';
      return true;
    });
  }
  await t.check('table_explain.csv that lost a column keeps its rows', async () => {
    const csv = 'book,chapter,section,figure_ref,content\n上册,第一章,第一节,表1-1,基金的分类表：开放式基金与封闭式基金。\n';
    const root = makeRoot(path.join(tmp, 'keep-csv'), { 'notes.md': NOTE_A, 'table_explain.csv': csv });
    if ((await runCli(cli, ['--root', root, 'ingest'])).code !== 0) return 'first ingest failed';
    const before = readChunks(root).filter((c) => c.source === 'rawdoc/table_explain.csv').length;
    writeFileSync(path.join(root, 'rawdoc', 'table_explain.csv'), 'book,chapter,content\nx,y,z\n');
    const r = await runCli(cli, ['--root', root, 'ingest']);
    const after = readChunks(root).filter((c) => c.source === 'rawdoc/table_explain.csv').length;
    if (r.code !== 3) return `exit ${r.code}`;
    return before > 0 && after === before ? true : `table chunks ${before} → ${after}`;
  });
  for (const [name, config] of [
    ['every file fails', null],
    ['every file fails after a chunking change', { chunking: { maxChars: 300 } }],
  ]) {
    await t.check(`${name}: the good index is not replaced`, async () => {
      const root = makeRoot(path.join(tmp, `allfail-${config ? 'cfg' : 'plain'}`), { 'notes.md': NOTE_A });
      copyFileSync(good, path.join(root, 'rawdoc', 'book.pdf'));
      if ((await runCli(cli, ['--root', root, 'ingest'])).code !== 0) return 'first ingest failed';
      const chunksBefore = readFileSync(path.join(root, 'data', 'chunks.jsonl'), 'utf8');
      writeFileSync(path.join(root, 'rawdoc', 'book.pdf'), bytes.subarray(0, 300));
      writeFileSync(path.join(root, 'rawdoc', 'notes.md'), '');
      if (config) writeFileSync(path.join(root, 'exam-copilot.config.json'), JSON.stringify(config));
      const r = await runCli(cli, ['--root', root, 'ingest']);
      if (r.code === 0) return 'exit 0 although every file failed';
      const now = existsSync(path.join(root, 'data', 'chunks.jsonl')) ? readFileSync(path.join(root, 'data', 'chunks.jsonl'), 'utf8') : '';
      if (now !== chunksBefore)
        return `chunks.jsonl changed (${chunksBefore.split('\n').length - 1} → ${now.split('\n').filter(Boolean).length} lines)`;
      return consistent(root) ? true : 'index inconsistent or empty';
    });
  }
  return t.result;
}

/** Starts `n` ingests at once on `root`; resolves with their results. */
function startMany(cli, root, n, args = ['ingest', '--force']) {
  return Promise.all(Array.from({ length: n }, () => runCli(cli, ['--root', root, ...args], { timeoutMs: 180_000 })));
}

/** A run of a race held when it built (0) or refused cleanly (1, naming the running ingest), without I/O errors. */
function raceRunHeld(r) {
  if (/I\/O error|SQLITE_|internal error|EEXIST|ENOENT|ENOTEMPTY/.test(r.stderr))
    return `error: ${errLines(r).find((l) => /I\/O|SQLITE|internal|EEXIST|ENOENT|ENOTEMPTY/.test(l))}`;
  if (r.code === 0) return true;
  if (r.code === 1 && /another ingest/.test(r.stderr) && errLines(r).length === 1) return true;
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}: ${errLines(r).slice(-1)[0] ?? ''}`;
}

async function concurrentIngests({ tmp, cli }) {
  const t = tally('ingest: concurrent ingests');
  const root = makeRoot(path.join(tmp, 'concurrent'), { 'a.md': NOTE_A, 'b.md': NOTE_B });
  for (let round = 0; round < 4 * rounds; round++) {
    const runs = await startMany(cli, root, 6);
    for (const [i, r] of runs.entries()) await t.check(`round ${round + 1} run ${i + 1}`, () => raceRunHeld(r));
    await t.check(`round ${round + 1}: one build at a time, index consistent`, () => {
      if (!runs.some((r) => r.code === 0)) return 'no run built';
      if (!consistent(root)) return 'chunk rows, FTS rows and vector ids disagree';
      const left = readdirSync(path.join(root, '.exam-copilot')).filter((f) => ['staging', 'previous', 'lock'].includes(f));
      return left.length === 0 ? true : `left behind: ${left.join(', ')}`;
    });
  }
  return t.result;
}

async function staleLockTakeover({ tmp, cli }) {
  const t = tally('ingest: stale-lock takeover');
  const root = makeRoot(path.join(tmp, 'stale'), { 'a.md': NOTE_A, 'b.md': NOTE_B });
  if ((await runCli(cli, ['--root', root, 'ingest'])).code !== 0) {
    t.result.tried = 1;
    t.result.failed = 1;
    t.result.failures.push('the first ingest failed');
    return t.result;
  }
  const lockFile = path.join(root, '.exam-copilot', 'lock');
  for (let round = 0; round < 8 * rounds; round++) {
    // A lock left by a dead ingest: the lock file as a crashed holder leaves it (its pid no longer exists).
    writeFileSync(
      lockFile,
      JSON.stringify({
        pid: 4_000_000 + round,
        hostname: (await import('node:os')).hostname(),
        command: 'exam-copilot ingest',
        startedAt: new Date().toISOString(),
      }),
    );
    const runs = await startMany(cli, root, 4);
    for (const [i, r] of runs.entries()) await t.check(`round ${round + 1} run ${i + 1}`, () => raceRunHeld(r));
    await t.check(`round ${round + 1}: taken over by one at a time, index consistent`, () => {
      if (!runs.some((r) => r.code === 0)) return 'nobody took the stale lock over';
      if (!consistent(root)) return 'chunk rows, FTS rows and vector ids disagree';
      return existsSync(lockFile) ? 'the lock file was left behind' : true;
    });
  }
  return t.result;
}

async function sigkill({ tmp, cli }) {
  const t = tally('ingest: SIGKILL during ingest');
  const root = makeRoot(path.join(tmp, 'kill'), { 'a.md': NOTE_A, 'b.md': NOTE_B });
  const good = path.join(root, 'rawdoc', 'book.pdf');
  await makePdf(good, ['Chapter 1 Funds', 'A fund is a pool of money managed for investors.']);
  if ((await runCli(cli, ['--root', root, 'ingest'])).code !== 0)
    return { ...t.result, tried: 1, failed: 1, failures: ['first ingest failed'] };
  const ids = readChunks(root).map((c) => c.chunk_id);
  const usable = async () => {
    // Any reader repairs first; search is the one every version has.
    const s = await runCli(cli, ['--root', root, 'search', '基金托管人', '--json']);
    if (s.code !== 0) return `search after the kill: exit ${s.code}: ${errLines(s).slice(-1)[0] ?? ''}`;
    const now = readChunks(root).map((c) => c.chunk_id);
    if (JSON.stringify(now) !== JSON.stringify(ids)) return `chunk ids changed (${ids.length} → ${now.length})`;
    return consistent(root) ? true : 'index inconsistent';
  };
  // Deterministic: the ingest stops at a pause point (a test hook) and is killed there.
  for (const point of ['parse', 'index', 'swap']) {
    await t.check(`killed at the ${point} pause point`, async () => {
      const marker = path.join(tmp, `paused-${point}`);
      rmSync(marker, { force: true });
      let paused = false;
      const r = await runCli(cli, ['--root', root, 'ingest', '--force'], {
        env: { NODE_OPTIONS: `--import=${PAUSE_HOOK}`, EXAM_COPILOT_TEST_PAUSE: `ingest:${point}:${marker}` },
        onSpawn: (child) => {
          const poll = setInterval(() => {
            if (!existsSync(marker)) return;
            paused = true;
            clearInterval(poll);
            child.kill('SIGKILL');
          }, 10);
          child.on('exit', () => clearInterval(poll));
        },
      });
      if (!paused || r.signal !== 'SIGKILL') return `the kill did not land at ${point} (exit ${r.code}, ${r.signal ?? 'no signal'})`;
      return usable();
    });
  }
  // Timed kills at spread-out moments, as a user's Ctrl-\ or an OOM killer would.
  for (const ms of [200, 500, 900, 1400, 2000, 2800]) {
    await t.check(`killed after ${ms} ms`, async () => {
      const r = await runCli(cli, ['--root', root, 'ingest', '--force'], {
        onSpawn: (child) => setTimeout(() => child.kill('SIGKILL'), ms),
      });
      if (r.signal !== 'SIGKILL' && r.code !== 0) return `exit ${r.code}`;
      return usable();
    });
  }
  return t.result;
}

async function hostilePdfs({ bench, tmp, cli }) {
  const t = tally('ingest: hostile PDFs');
  const files = [];
  for (const dir of ['pdfs', 'pdfs-extra']) {
    const folder = bench ? path.join(bench, dir) : null;
    if (!folder || !existsSync(folder)) continue;
    for (const name of readdirSync(folder)
      .filter((n) => n.toLowerCase().endsWith('.pdf'))
      .sort())
      files.push(path.join(folder, name));
  }
  const root = makeRoot(
    path.join(tmp, 'hostile'),
    { 'notes.md': NOTE_A, 'blank.pdf': zeroPagePdf() },
    { pdf: { pageTimeoutMs: 5000, fileTimeoutMs: 15000 } },
  );
  for (const f of files) copyFileSync(f, path.join(root, 'rawdoc', `${path.basename(path.dirname(f))}-${path.basename(f)}`));
  const r = await runCli(cli, ['--root', root, 'ingest', '--json'], { timeoutMs: 20 * 60_000 });
  let report = null;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    // Judged below.
  }
  await t.check('the whole run ends with exit 3 and no stack trace', () =>
    r.timedOut ? 'hung' : r.code === 3 && !hasStack(r.stderr) ? true : `exit ${r.code}${hasStack(r.stderr) ? ', stack trace' : ''}`,
  );
  for (const name of ['blank.pdf', ...files.map((f) => `${path.basename(path.dirname(f))}-${path.basename(f)}`)]) {
    await t.check(name, () => {
      const f = report?.files?.find((x) => x.source === `rawdoc/${name}`);
      if (!f) return 'not in the report';
      if (f.status === 'failed') return f.error && !f.error.includes('\n') ? true : 'failed without a one-line reason';
      if (name === 'blank.pdf') return `a PDF with no pages was "${f.status}"`;
      return f.status === 'ok' ? true : `status ${f.status}`;
    });
  }
  await t.check('index consistent after the hostile run', () => (consistent(root) ? true : 'inconsistent'));
  return t.result;
}

/** The ingest groups. */
export default async function run(context) {
  return [
    await symlinkLoops(context),
    await failedFilesKeepChunks(context),
    await concurrentIngests(context),
    await staleLockTakeover(context),
    await sigkill(context),
    await hostilePdfs(context),
  ];
}
