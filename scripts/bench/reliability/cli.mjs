// Reliability groups for the CLI around ingest: exit codes, one-line errors, freshness of readers, terminal
// escapes in file names and titles. Every case runs the real CLI (or, for an open ask session, the built API).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { errLines, hasStack, makePdf, makeRoot, NOTE_A, readChunks, repo, runCli, tally, zeroPagePdf } from './lib/fixtures.mjs';

const DATASET = 'id,question,A,B,C,D,answer\nQ1,基金财产由（ ）保管。,基金托管人,基金管理人,基金销售机构,基金份额登记机构,A\n';

/** One non-empty stderr line starting `exam-copilot:` and no stack trace. */
function oneLine(r) {
  const lines = errLines(r);
  if (hasStack(r.stderr)) return 'stack trace';
  if (lines.length !== 1) return `${lines.length} stderr lines: ${lines.slice(0, 2).join(' / ')}`;
  return lines[0].startsWith('exam-copilot: ') ? true : `not an error line: ${lines[0]}`;
}

async function exitCodes({ tmp, cli }) {
  const t = tally('cli: exit codes');
  const root = makeRoot(path.join(tmp, 'codes'), { 'a.md': NOTE_A });
  const expect = (name, args, code, setup) =>
    t.check(name, async () => {
      setup?.();
      const r = await runCli(cli, ['--root', root, ...args]);
      return r.code === code ? true : `exit ${r.code}, expected ${code}: ${errLines(r).slice(-1)[0] ?? ''}`;
    });
  await expect('search before any ingest is not-ready (5)', ['search', '基金'], 5);
  await expect('toc before any ingest is not-ready (5)', ['toc'], 5);
  await expect('ingest of good notes is 0', ['ingest'], 0);
  await expect('a PDF with no pages is partial (3)', ['ingest'], 3, () =>
    writeFileSync(path.join(root, 'rawdoc', 'blank.pdf'), zeroPagePdf()),
  );
  await expect('an empty PDF is partial (3)', ['ingest'], 3, () => {
    rmSync(path.join(root, 'rawdoc', 'blank.pdf'));
    writeFileSync(path.join(root, 'rawdoc', 'empty.pdf'), '');
  });
  await expect('a missing path argument is usage (2)', ['ingest', path.join(root, 'nope.pdf')], 2, () =>
    rmSync(path.join(root, 'rawdoc', 'empty.pdf')),
  );
  await expect('an unknown command is usage (2)', ['frobnicate'], 2);
  await expect('a missing root is 1', ['--root', path.join(root, 'missing'), 'ingest'], 1);
  await expect('doctor on a missing root fails (1)', ['--root', path.join(root, 'missing'), 'doctor'], 1);
  return t.result;
}

async function oneLineErrors({ tmp, cli }) {
  const t = tally('cli: one-line errors');
  const root = makeRoot(path.join(tmp, 'errors'), { 'a.md': NOTE_A });
  await runCli(cli, ['--root', root, 'ingest']);
  const dataset = path.join(root, 'set.csv');
  writeFileSync(dataset, DATASET);
  const file = path.join(root, 'rawdoc', 'a.md');
  const missing = path.join(tmp, 'no-such-root');
  for (const cmd of [['ingest'], ['search', '基金'], ['toc'], ['doctor'], ['ask', '基金财产由谁保管？']]) {
    await t.check(`--root pointing to a file: ${cmd[0]}`, async () => {
      const r = await runCli(cli, ['--root', file, ...cmd]);
      if (r.code === 0) return 'exit 0';
      const l = oneLine(r);
      if (l !== true) return l;
      return /is a file|not a folder|not a directory/.test(r.stderr) ? true : `does not say it is a file: ${errLines(r)[0]}`;
    });
    await t.check(`--root missing: ${cmd[0]} says so and creates nothing`, async () => {
      const r = await runCli(cli, ['--root', missing, ...cmd]);
      if (r.code !== 1) return `exit ${r.code}`;
      if (existsSync(missing)) return `created ${readdirSync(missing).join(', ') || 'the folder'}`;
      const l = oneLine(r);
      if (l !== true) return l;
      return /does not exist/.test(r.stderr) ? true : `does not say the folder does not exist: ${errLines(r)[0]}`;
    });
  }
  const dict = path.join(root, 'rawdoc', 'userdict.txt');
  for (const [name, bytes] of [
    ['binary userdict.txt', Buffer.from([0x25, 0x50, 0x44, 0x46, 0x0a, 0x00, 0xff, 0xfe, 0x01, 0x0a])],
    ['GBK userdict.txt', Buffer.from([0xbb, 0xf9, 0xbd, 0xf0, 0xcd, 0xd0, 0xb9, 0xdc, 0xc8, 0xcb, 0x0a])],
  ]) {
    for (const cmd of [
      ['ingest', '--force'],
      ['search', '基金'],
    ]) {
      await t.check(`${name}: ${cmd[0]}`, async () => {
        writeFileSync(dict, bytes);
        const r = await runCli(cli, ['--root', root, ...cmd]);
        rmSync(dict);
        if (r.code === 0) return 'accepted silently (exit 0)';
        const l = oneLine(r);
        if (l !== true) return l;
        return r.stderr.includes('userdict.txt') ? true : 'does not name the file';
      });
    }
  }
  for (const flag of ['--report-json', '--report-md', '--predictions']) {
    await t.check(`${flag} pointing to a folder`, async () => {
      const out = path.join(tmp, `out${flag}`);
      mkdirSync(out, { recursive: true });
      const r = await runCli(cli, ['--root', root, 'eval', dataset, '--modes', 'keyword', flag, out]);
      if (r.code === 0) return 'exit 0';
      const l = oneLine(r);
      if (l !== true) return l;
      return r.stderr.includes(out) ? true : 'does not name the folder';
    });
  }
  await t.check('a run directory another eval is using', async () => {
    const runDir = path.join(tmp, 'busy-runs');
    // A long eval holds the run directory: the one started second must say so instead of interleaving run files.
    const big = path.join(tmp, 'big.csv');
    writeFileSync(
      big,
      `id,question,A,B,C,D,answer\n${Array.from({ length: 400 }, (_, i) => `Q${i},基金财产由（ ）保管${i}。,基金托管人,基金管理人,基金销售机构,基金份额登记机构,A`).join('\n')}\n`,
    );
    const first = runCli(cli, ['--root', root, 'eval', big, '--modes', 'keyword,vector,hybrid', '--run-dir', runDir]);
    let second = null;
    for (let i = 0; i < 100 && !second; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (existsSync(runDir) && readdirSync(runDir).some((f) => f.endsWith('.jsonl')))
        second = await runCli(cli, ['--root', root, 'eval', dataset, '--modes', 'keyword', '--run-dir', runDir]);
    }
    const done = await first;
    if (!second) return `the first eval never wrote a run file (exit ${done.code})`;
    if (second.code === 0) return 'two evals used one run directory at once';
    const l = oneLine(second);
    if (l !== true) return l;
    return second.stderr.includes(runDir) ? true : 'does not name the run directory';
  });
  return t.result;
}

async function freshness({ tmp, cli }) {
  const t = tally('cli: freshness');
  const root = makeRoot(path.join(tmp, 'fresh'), { 'a.md': NOTE_A });
  await makePdf(path.join(root, 'rawdoc', 'book.pdf'), ['Chapter 1 Funds', 'A fund is a pool of money.']);
  await runCli(cli, ['--root', root, 'ingest']);
  const previous = path.join(root, '.exam-copilot', 'previous');
  const interrupt = () => {
    // The state a crash leaves right after data/ and index/ were moved aside.
    mkdirSync(previous, { recursive: true });
    renameSync(path.join(root, 'data'), path.join(previous, 'data'));
    renameSync(path.join(root, 'index'), path.join(previous, 'index'));
  };
  for (const [name, args, ok] of [
    ['search', ['search', '基金托管人', '--json'], (r) => r.code === 0],
    ['toc', ['toc', '--json'], (r) => r.code === 0],
    ['doctor', ['doctor', '--json'], (r) => /"name": "index",\s*"status": "ok"/.test(r.stdout)],
    ['ask', ['ask', '基金财产由（ ）保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构', '--json'], (r) => r.code === 0],
  ]) {
    await t.check(`${name} repairs an interrupted swap`, async () => {
      interrupt();
      const r = await runCli(cli, ['--root', root, ...args]);
      const repaired = existsSync(path.join(root, 'data', 'chunks.jsonl')) && !existsSync(previous);
      if (!repaired) {
        // Leave the root usable for the next case.
        await runCli(cli, ['--root', root, 'search', '基金']);
        return `left the swap interrupted (exit ${r.code})`;
      }
      return ok(r) ? true : `exit ${r.code}: ${errLines(r).slice(-1)[0] ?? ''}`;
    });
  }
  const dict = path.join(root, 'rawdoc', 'userdict.txt');
  await t.check('an edited userdict.txt is noticed by ingest', async () => {
    writeFileSync(dict, '利益共享\n风险共担\n');
    const r = await runCli(cli, ['--root', root, 'ingest', '--json']);
    return JSON.parse(r.stdout).upToDate === false ? true : 'ingest said everything is up to date';
  });
  await t.check('an edited userdict.txt is noticed by doctor', async () => {
    writeFileSync(dict, '利益共享\n风险共担\n集合投资\n');
    const r = await runCli(cli, ['--root', root, 'doctor', '--json']);
    const index = JSON.parse(r.stdout).checks.find((c) => c.name === 'index');
    return index?.status !== 'ok' ? true : `doctor says: ${index?.message}`;
  });
  await runCli(cli, ['--root', root, 'ingest']);
  await t.check('an open ask session answers from the new index after another ingest', async () => {
    const { openAskSession } = await import(pathToFileURL(path.join(repo, 'dist', 'src', 'answer', 'run-ask.js')).href);
    const { loadConfig } = await import(pathToFileURL(path.join(repo, 'dist', 'src', 'config', 'load-config.js')).href);
    const config = () => loadConfig({ root, env: {} }).config;
    const session = await openAskSession({
      root,
      config: config(),
      mode: 'keyword',
      topK: 3,
      rerank: false,
      cache: false,
      answerer: 'offline',
    });
    try {
      const q = '基金财产由哪个机构保管？A.甲乙丙托管公司 B.基金托管人 C.基金管理人 D.销售机构';
      await session.ask(q);
      writeFileSync(path.join(root, 'rawdoc', 'more.md'), '# 第三章 保管\n\n基金财产由甲乙丙托管公司独立保管。\n');
      const r = await runCli(cli, ['--root', root, 'ingest']);
      if (r.code !== 0) return `ingest exit ${r.code}`;
      const after = await session.ask(q);
      return JSON.stringify(after.result.context).includes('甲乙丙托管公司') ? true : 'still answering from the old index';
    } finally {
      session.close();
    }
  });

  return t.result;
}

async function terminalEscapes({ tmp, cli }) {
  const t = tally('cli: terminal escapes');
  const names = [
    ['ESC clear screen', 'clear\u001b[2J\u001b[H.pdf'],
    ['OSC window title', 'title\u001b]0;pwned\u0007.pdf'],
    ['carriage return', 'over\rwrite.pdf'],
    ['newline', 'two\nlines.pdf'],
    ['backspace', 'back\bspace.pdf'],
    ['C1 CSI', 'c1\u009b31m.pdf'],
    ['bidi override', 'bidi\u202Efdp.exe.pdf'],
  ];
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
  for (const [i, [name, file]] of names.entries()) {
    await t.check(`file name with ${name}`, async () => {
      const root = makeRoot(path.join(tmp, `esc-${i}`), { 'a.md': NOTE_A });
      writeFileSync(path.join(root, 'rawdoc', file), 'not a pdf');
      const r = await runCli(cli, ['--root', root, 'ingest']);
      const out = r.stdout + r.stderr;
      if (raw.test(out)) return `printed raw: ${JSON.stringify(out.match(raw)?.[0])}`;
      const shown = errLines(r).filter((l) => l.includes('not a readable PDF') || l.includes('could not be read'));
      return shown.length === 1 ? true : `the error took ${shown.length} lines`;
    });
  }
  await t.check('PDF outline titles with escapes in toc', async () => {
    const root = makeRoot(path.join(tmp, 'esc-title'), {});
    const file = path.join(root, 'rawdoc', 'book.pdf');
    await makePdf(file, ['Chapter 1 Funds\u001b[2J', 'A fund is a pool of money.'], { info: { Title: 'Evil\u001b]0;x\u0007Title' } });
    await runCli(cli, ['--root', root, 'ingest']);
    const r = await runCli(cli, ['--root', root, 'toc']);
    const out = r.stdout + r.stderr;
    return raw.test(out) ? `printed raw: ${JSON.stringify(out.match(raw)?.[0])}` : true;
  });
  await t.check('book named with escapes in search results', async () => {
    const root = makeRoot(path.join(tmp, 'esc-search'), { 'evil\u001b[2Jbook.md': NOTE_A });
    await runCli(cli, ['--root', root, 'ingest']);
    const r = await runCli(cli, ['--root', root, 'search', '基金托管人']);
    if (r.code !== 0) return `search exit ${r.code}`;
    const out = r.stdout + r.stderr;
    return raw.test(out) ? `printed raw: ${JSON.stringify(out.match(raw)?.[0])}` : readChunks(root).length > 0 ? true : 'nothing indexed';
  });
  return t.result;
}

/** The CLI groups. */
export default async function run(context) {
  return [await exitCodes(context), await oneLineErrors(context), await freshness(context), await terminalEscapes(context)];
}
