// Shared fixtures for the reliability groups: project roots, CLI runs, index consistency, tiny PDFs, case tally.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository these scripts live in (its node_modules provides better-sqlite3 and pdfkit). */
export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const require = createRequire(path.join(repo, 'package.json'));

/** Short Chinese notes: ingesting them takes about a second, so many runs fit in a benchmark. */
export const NOTE_A =
  '# 第一章 基金概述\n\n## 第一节 基金的特点\n\n证券投资基金是一种利益共享、风险共担的集合投资方式。基金财产由基金托管人保管。\n';
export const NOTE_B = '# 第二章 基金当事人\n\n## 第一节 基金管理人\n\n基金管理人负责基金的投资管理，基金份额持有人享有收益分配权。\n';

/** A fresh root under `dir` with `rawdoc/` holding `files` (name → string or Buffer). */
export function makeRoot(dir, files = {}, config = null) {
  const root = dir;
  mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'rawdoc', name)), { recursive: true });
    writeFileSync(path.join(root, 'rawdoc', name), content);
  }
  if (config) writeFileSync(path.join(root, 'exam-copilot.config.json'), JSON.stringify(config));
  return root;
}

/**
 * Runs the CLI. Resolves with exit code, signal, output, duration and whether the time limit killed it.
 * `onSpawn` gets the child (to kill it); `input` is written to stdin.
 */
export function runCli(cli, args, options = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ...(options.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 120_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    options.onSpawn?.(child);
  });
}

/** The chunks in data/chunks.jsonl. */
export function readChunks(root) {
  const file = path.join(root, 'data', 'chunks.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** Chunk rows, FTS metadata rows, FTS5 rows and vector ids of the built index; null when there is none. */
export function indexCounts(root) {
  const fts = path.join(root, 'index', 'sqlite_fts.db');
  const ids = path.join(root, 'index', 'faiss', 'ids.json');
  if (!existsSync(fts) || !existsSync(ids)) return null;
  const Database = require('better-sqlite3');
  const db = new Database(fts, { readonly: true });
  try {
    const n = (sql) => db.prepare(sql).get().n;
    return {
      chunks: readChunks(root).length,
      meta: n('SELECT count(*) AS n FROM chunks'),
      fts: n('SELECT count(*) AS n FROM chunks_fts'),
      vectors: JSON.parse(readFileSync(ids, 'utf8')).length,
    };
  } finally {
    db.close();
  }
}

/** True when the index exists, is non-empty and chunk rows = FTS rows = vector ids. */
export function consistent(root) {
  const c = indexCounts(root);
  return c !== null && c.chunks > 0 && c.chunks === c.meta && c.meta === c.fts && c.fts === c.vectors;
}

/** A small Latin-text PDF (pdfkit's built-in fonts have no CJK glyphs); `options` go to PDFDocument. */
export function makePdf(file, lines, options = {}) {
  const PDFDocument = require('pdfkit');
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument(options);
    const parts = [];
    doc.on('data', (c) => parts.push(c));
    doc.on('end', () => {
      writeFileSync(file, Buffer.concat(parts));
      resolve();
    });
    doc.on('error', reject);
    for (const l of lines) doc.text(l);
    doc.end();
  });
}

/** A well-formed PDF whose page tree is empty. */
export function zeroPagePdf() {
  const objs = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>'];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  return `${out}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}

/** Stack-trace lines or an internal-error banner in output. */
export function hasStack(text) {
  return /\n\s+at [^\n]+:\d+:\d+\)?/.test(text) || /internal error/.test(text);
}

/** Lines of stderr that are not blank. */
export function errLines(r) {
  return r.stderr.split('\n').filter((l) => l.trim() !== '');
}

/**
 * Tallies the cases of one group. `check(name, fn)` runs one case: it holds when `fn` returns true (or a
 * string, which is then the failure reason when not `true`); a throw is a failure with its message.
 */
export function tally(group) {
  const result = { group, tried: 0, held: 0, failed: 0, failures: [] };
  return {
    result,
    async check(name, fn) {
      result.tried++;
      let verdict;
      try {
        verdict = await fn();
      } catch (error) {
        verdict = `threw ${String(error?.message ?? error).split('\n')[0]}`;
      }
      if (verdict === true) result.held++;
      else {
        result.failed++;
        result.failures.push(`${name}: ${typeof verdict === 'string' ? verdict : 'did not hold'}`);
      }
    },
  };
}
