#!/usr/bin/env node
// OCR benchmark over <bench>/scanned/: a 30-page scan of the fund-law book (150 dpi, slightly rotated, noisy JPEG,
// no text layer) with the true text of every page. It runs the real `ingest` on a temporary root and prints:
//   - per page and overall: CER (character error rate, whitespace ignored) of the OCR'd page text against the truth;
//   - 4-gram recall of the body text: truth pages 7-30 without running head and footer, against the chunks ingest wrote;
//   - where 第三十二条 landed (printed page and heading path);
//   - pages/s of the OCR ingest, of a re-ingest served from the OCR cache, and of a text-layer ingest of the same
//     book's original PDF (fund-laws/pdf-combined/基金从业法律法规汇编-无书签.pdf, first 30 pages) when present.
//
// Usage: node scripts/bench/ocr.mjs [bench-dir] [--pages N] [--reuse-ocr] [--robustness]
//   (needs `npm run build` and the OCR packages)
// The OCR results are kept in <tmp>/exam-copilot-ocr-bench-cache; `--reuse-ocr` starts from them, to re-measure
// structure and recall after a change without OCR'ing again (the first pages/s figure is then not an OCR speed).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const pagesArg = args.indexOf('--pages');
const limit = pagesArg >= 0 ? Number(args[pagesArg + 1]) : Infinity;
const bench = path.resolve(
  args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--pages') ?? path.join(repo, '..', 'shared', 'bench'),
);
const scanned = path.join(bench, 'scanned', '证券投资基金法-扫描版.pdf');
const truthFile = path.join(bench, 'scanned', 'truth.jsonl');
if (!existsSync(scanned) || !existsSync(truthFile)) {
  console.error(`no scanned bench under ${bench}/scanned`);
  process.exit(2);
}
const dist = (p) => path.join(repo, 'dist', 'src', p);
const { runIngest } = await import(dist('ingest/run-ingest.js'));
const { loadConfig } = await import(dist('config/load-config.js'));
const { ocrBoxesToPieces } = await import(dist('ingest/ocr/ocr-lines.js'));
const { rebuildLines } = await import(dist('ingest/rebuild-lines.js'));
const { ocrAvailability } = await import(dist('ingest/ocr/ocr-engine.js'));

const status = await ocrAvailability();
if (!status.available) {
  console.error(`OCR is not available: ${status.reason}`);
  process.exit(2);
}

const squash = (t) => t.normalize('NFKC').replace(/\s+/gu, '');
// For CER, 目录 leader dots are layout, not text: the truth has dozens per line, OCR reads a few or none.
const squashForCer = (t) => squash(t).replace(/[.·…]{2,}/gu, '');
const truth = readFileSync(truthFile, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l));
const bodyOf = (text) => {
  // The running head is the first non-empty line and the footer the last one.
  const lines = text.split('\n').filter((l) => l.replace(/\f/gu, '').trim() !== '');
  return lines.slice(1, -1).join('\n');
};

function levenshtein(a, b) {
  const m = a.length;
  const n = b.length;
  let prev = new Uint32Array(n + 1).map((_, j) => j);
  let cur = new Uint32Array(n + 1);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca === b.charCodeAt(j - 1) ? 0 : 1));
    [prev, cur] = [cur, prev];
  }
  return prev[n];
}
const grams = (t, n = 4) => {
  const out = [];
  const chars = [...t];
  for (let i = 0; i + n <= chars.length; i++) out.push(chars.slice(i, i + n).join(''));
  return out;
};

async function ingest(root, force) {
  const { config } = loadConfig({ root });
  const t0 = performance.now();
  const result = await runIngest({ root, config, force, ocr: 'auto' });
  const seconds = (performance.now() - t0) / 1000;
  const file = result.files.find((f) => f.kind === 'pdf');
  return { result, seconds, pages: file?.pages ?? 0, file };
}

function makeRoot(pdf, name) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-ocr-bench-'));
  mkdirSync(path.join(root, 'rawdoc'));
  const target = path.join(root, 'rawdoc', name);
  if (Number.isFinite(limit)) {
    const r = spawnSync('qpdf', ['--empty', '--pages', pdf, `1-${limit}`, '--', target]);
    if (r.status !== 0) {
      // Without qpdf, poppler's pdfseparate/pdfunite.
      const parts = [];
      for (let p = 1; p <= limit; p++) {
        const part = path.join(root, `p${p}.pdf`);
        spawnSync('pdfseparate', ['-f', String(p), '-l', String(p), pdf, part]);
        parts.push(part);
      }
      spawnSync('pdfunite', [...parts, target]);
    }
  } else copyFileSync(pdf, target);
  return root;
}

// `--robustness`: every PDF of <bench>/pdfs and <bench>/pdfs-extra through the parser with OCR on (auto), as
// robustness.mjs does with it off: each must end with text or a clean error, never a crash or a hang.
if (args.includes('--robustness')) {
  const { createHash } = await import('node:crypto');
  const { readdirSync } = await import('node:fs');
  const { parsePdf, PdfParseError } = await import(dist('ingest/parse-pdf.js'));
  const { structurePdf } = await import(dist('ingest/structure-pdf.js'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-ocr-robust-'));
  const counts = { ok: 0, 'clean error': 0, crash: 0, timeout: 0 };
  let ocrPages = 0;
  const t0 = performance.now();
  try {
    for (const dir of ['pdfs', 'pdfs-extra']) {
      const folder = path.join(bench, dir);
      if (!existsSync(folder)) continue;
      for (const name of readdirSync(folder)
        .filter((n) => n.toLowerCase().endsWith('.pdf'))
        .sort()) {
        const file = path.join(folder, name);
        const started = performance.now();
        const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
        const options = {
          pageTimeoutMs: 10_000,
          fileTimeoutMs: 30_000,
          ocr: { mode: 'auto', cacheDir, sha256, dpi: 150, pageTimeoutMs: 120_000 },
        };
        let watchdog;
        // Generous: OCR time is outside the file limit, so allow each page its OCR limit on top.
        const hang = new Promise((resolve) => (watchdog = setTimeout(() => resolve('hang'), 30 * 60_000)));
        let outcome;
        let detail = '';
        try {
          const raw = await Promise.race([parsePdf(file, options), hang]);
          if (raw === 'hang') outcome = 'timeout';
          else {
            const st = structurePdf(raw, { book: 'x', source: name });
            outcome = 'ok';
            ocrPages += raw.ocr?.pages ?? 0;
            const chars = st.segments.reduce((n, seg) => n + seg.text.length, 0);
            detail = `${raw.numPages} pages, ${raw.ocr?.pages ?? 0} OCR'd, ${chars} chars${
              raw.ocr?.pages
                ? `: ${JSON.stringify(
                    st.segments
                      .map((x) => x.text)
                      .join(' ')
                      .slice(0, 60),
                  )}`
                : ''
            }`;
          }
        } catch (error) {
          if (error instanceof PdfParseError) {
            outcome = 'clean error';
            detail = `${error.kind}: ${error.message}`.slice(0, 80);
          } else {
            outcome = 'crash';
            detail = String(error?.stack ?? error).split('\n')[0];
          }
        } finally {
          clearTimeout(watchdog);
        }
        counts[outcome]++;
        console.log(`${dir}/${name}\t${outcome}\t${((performance.now() - started) / 1000).toFixed(1)} s\t${detail}`);
      }
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(
    `\nfiles ${total} with OCR auto: ok ${counts.ok}, clean error ${counts['clean error']}, crash ${counts.crash}, timeout ${counts.timeout}; ${ocrPages} pages OCR'd; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  process.exit(counts.crash + counts.timeout > 0 ? 1 : 0);
}

const root = makeRoot(scanned, '证券投资基金法-扫描版.pdf');
const keep = path.join(os.tmpdir(), 'exam-copilot-ocr-bench-cache');
if (args.includes('--reuse-ocr') && existsSync(keep)) cpSync(keep, path.join(root, '.exam-copilot', 'cache', 'ocr'), { recursive: true });
try {
  const first = await ingest(root, true);
  if (first.file?.status !== 'ok') {
    console.error(`ingest failed: ${first.file?.error ?? 'no PDF result'}`);
    process.exit(1);
  }
  const second = await ingest(root, true);
  cpSync(path.join(root, '.exam-copilot', 'cache', 'ocr'), keep, { recursive: true });

  // Per page CER from the cached OCR results, rebuilt into lines exactly as ingest does.
  const cacheRoot = path.join(root, '.exam-copilot', 'cache', 'ocr');
  const [sha] = spawnSync('ls', [cacheRoot], { encoding: 'utf8' }).stdout.trim().split('\n');
  let errors = 0;
  let truthChars = 0;
  let bodyErrors = 0;
  let bodyChars = 0;
  console.log('pdf page\ttruth chars\tCER');
  for (const page of truth) {
    if (page.pdf_page > first.pages) break;
    const entry = JSON.parse(readFileSync(path.join(cacheRoot, sha, `p${page.pdf_page}-150dpi.json`), 'utf8'));
    const heightPt = (entry.result.height * 72) / entry.result.dpi;
    const widthPt = (entry.result.width * 72) / entry.result.dpi;
    const text = rebuildLines(ocrBoxesToPieces(entry.result, heightPt), widthPt)
      .map((l) => l.text)
      .join('\n');
    const want = squashForCer(page.text);
    const got = squashForCer(text);
    const e = levenshtein(got, want);
    errors += e;
    truthChars += want.length;
    if (page.pdf_page >= 7) {
      bodyErrors += e;
      bodyChars += want.length;
    }
    console.log(`${page.pdf_page}\t${want.length}\t${(e / Math.max(1, want.length)).toFixed(4)}`);
  }

  // Body recall against what ingest wrote.
  const chunks = readFileSync(path.join(root, 'data', 'chunks.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
  const have = new Set(chunks.flatMap((c) => grams(squash(c.text))));
  let found = 0;
  let total = 0;
  for (const page of truth.filter((p) => p.pdf_page >= 7 && p.pdf_page <= first.pages)) {
    for (const g of grams(squash(bodyOf(page.text)))) {
      total++;
      if (have.has(g)) found++;
    }
  }
  const art = chunks.find((c) => squash(c.text).includes('第三十二条基金托管人由依法设立的商业银行'));
  const path32 = art ? [art.chapter, art.section, art.subsection, ...(art.headings ?? [])].filter(Boolean) : [];
  const ocrChunks = chunks.filter((c) => c.ocr === true).length;

  console.log(`\npages\t${first.pages}`);
  console.log(`CER (all pages, whitespace and leader dots ignored)\t${(errors / Math.max(1, truthChars)).toFixed(4)}`);
  console.log(`CER (body pages 7-${first.pages})\t${(bodyErrors / Math.max(1, bodyChars)).toFixed(4)}`);
  console.log(`body 4-gram recall (pdf pages 7-${first.pages})\t${(found / Math.max(1, total)).toFixed(4)}\t(${found}/${total})`);
  console.log(
    `第三十二条\t${art ? `printed page ${art.page_start} (pdf ${art.pdf_page_start}), under ${[...new Set(path32)].join(' > ')}` : 'not found'}`,
  );
  console.log(`chunks\t${chunks.length} (${ocrChunks} marked ocr)`);
  console.log(
    `ingest with OCR\t${first.seconds.toFixed(1)} s\t${(first.pages / first.seconds).toFixed(3)} pages/s\t(${first.file?.ocr?.pages ?? 0} OCR pages, ${first.file?.ocr?.cached ?? 0} from the cache)`,
  );
  console.log(
    `re-ingest (--force, OCR cache)\t${second.seconds.toFixed(1)} s\t${(second.pages / second.seconds).toFixed(2)} pages/s\t(${second.file?.ocr?.cached ?? 0} of ${second.file?.ocr?.pages ?? 0} OCR pages from the cache)`,
  );

  const original = path.join(bench, 'fund-laws', 'pdf-combined', '基金从业法律法规汇编-无书签.pdf');
  if (existsSync(original)) {
    const textRoot = makeRoot(original, 'text-layer.pdf');
    try {
      const t = await ingest(textRoot, true);
      console.log(
        `ingest of the text-layer original\t${t.seconds.toFixed(1)} s\t${(t.pages / t.seconds).toFixed(2)} pages/s\t(${t.pages} pages)`,
      );
    } finally {
      rmSync(textRoot, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
