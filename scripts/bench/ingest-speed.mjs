#!/usr/bin/env node
// Ingest speed and structure benchmark over <bench>/fund-laws/: pages per second of our PDF parser
// (worker thread + line rebuilding + structuring) next to poppler's `pdftotext` on the same files, measured in
// the same run; and how many entries of the printed 目录 of the combined books became chapters in our outline.
//
// Usage: node scripts/bench/ingest-speed.mjs [bench-dir]   (needs `npm run build` and poppler-utils)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bench = path.resolve(process.argv[2] ?? path.join(repo, '..', 'shared', 'bench'));
const laws = path.join(bench, 'fund-laws');
const { parsePdf, pdfParseThreads } = await import(path.join(repo, 'dist', 'src', 'ingest', 'parse-pdf.js'));
const { structurePdf } = await import(path.join(repo, 'dist', 'src', 'ingest', 'structure-pdf.js'));
const { parseToc } = await import(path.join(repo, 'dist', 'src', 'ingest', 'parse-toc.js'));
const { findRunningLines } = await import(path.join(repo, 'dist', 'src', 'ingest', 'running-lines.js'));
const { modalSize } = await import(path.join(repo, 'dist', 'src', 'ingest', 'structure-pdf.js'));
const { titleKey } = await import(path.join(repo, 'dist', 'src', 'ingest', 'headings.js'));

const list = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith('.pdf'))
        .sort()
        .map((n) => path.join(dir, n))
    : [];
const groups = [
  ['pdf-combined', list(path.join(laws, 'pdf-combined'))],
  ['pdf', list(path.join(laws, 'pdf'))],
];
if (groups.every(([, files]) => files.length === 0)) {
  console.error(`no PDFs under ${laws}`);
  process.exit(2);
}
const havePdftotext = spawnSync('pdftotext', ['-v']).status !== null;

const structures = new Map();
console.log('file\tpages\tours ms\tours pages/s\tpdftotext ms\tpdftotext pages/s\tratio (ours/pdftotext time)');
const total = { pages: 0, ours: 0, poppler: 0 };
for (const [group, files] of groups) {
  const sum = { pages: 0, ours: 0, poppler: 0 };
  for (const file of files) {
    const t0 = performance.now();
    // As ingest parses it: on several threads when the machine has the cores.
    const raw = await parsePdf(file, { pageTimeoutMs: 30_000, fileTimeoutMs: 300_000, threads: pdfParseThreads() });
    const s = structurePdf(raw, { book: path.basename(file), source: file });
    const ours = performance.now() - t0;
    structures.set(file, { raw, s });
    let poppler = NaN;
    if (havePdftotext) {
      const t1 = performance.now();
      spawnSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 256 * 1024 * 1024 });
      poppler = performance.now() - t1;
    }
    sum.pages += raw.numPages;
    sum.ours += ours;
    sum.poppler += poppler;
    console.log(
      `${group}/${path.basename(file)}\t${raw.numPages}\t${ours.toFixed(0)}\t${((raw.numPages * 1000) / ours).toFixed(1)}\t${poppler.toFixed(0)}\t${((raw.numPages * 1000) / poppler).toFixed(1)}\t${(ours / poppler).toFixed(2)}`,
    );
  }
  console.log(
    `${group} total\t${sum.pages}\t${sum.ours.toFixed(0)}\t${((sum.pages * 1000) / sum.ours).toFixed(1)}\t${sum.poppler.toFixed(0)}\t${((sum.pages * 1000) / sum.poppler).toFixed(1)}\t${(sum.ours / sum.poppler).toFixed(2)}`,
  );
  total.pages += sum.pages;
  total.ours += sum.ours;
  total.poppler += sum.poppler;
}
console.log(
  `all\t${total.pages}\t${total.ours.toFixed(0)}\t${((total.pages * 1000) / total.ours).toFixed(1)}\t${total.poppler.toFixed(0)}\t${((total.pages * 1000) / total.poppler).toFixed(1)}\t${(total.ours / total.poppler).toFixed(2)}`,
);

// Structure: the printed 目录 (read from the TOC pages themselves, not from bookmarks) against our chapters.
console.log('');
console.log(
  'file\tTOC entries\tTOC level-1 entries\tlevel-1 entries found as chapters\tall entries found as headings (any level)\tpages right',
);
for (const name of ['fund-laws-combined.pdf', '基金从业法律法规汇编-无书签.pdf', '基金从业法律法规汇编.pdf']) {
  const file = path.join(laws, 'pdf-combined', name);
  const got = structures.get(file);
  if (!got) continue;
  const { raw, s } = got;
  const running = findRunningLines(raw.pages, modalSize(raw.pages.flatMap((p) => p.lines)));
  const toc = parseToc(raw.pages, (page, line) => running.drop.get(page)?.has(line) === true);
  const chapters = new Set(s.segments.map((seg) => titleKey(seg.chapter)));
  const headingKeys = new Map();
  for (const seg of s.segments)
    for (const [lvl, t] of [
      [1, seg.chapter],
      [2, seg.section],
      [3, seg.subsection],
    ])
      if (t) headingKeys.set(`${lvl}|${titleKey(t)}`, true);
  const level1 = toc.entries.filter((e) => e.level === 1);
  const found1 = level1.filter((e) => chapters.has(titleKey(e.title))).length;
  const foundAll = toc.entries.filter((e) => headingKeys.has(`${e.level}|${titleKey(e.title)}`)).length;
  // Printed page of each TOC entry against the outline's page for the same title.
  let pagesRight = 0;
  for (const e of toc.entries) if (s.outline.some((o) => titleKey(o.title) === titleKey(e.title) && o.page === e.page)) pagesRight++;
  console.log(
    `${name}\t${toc.entries.length}\t${level1.length}\t${found1}/${level1.length}\t${foundAll}/${toc.entries.length}\t${pagesRight}/${toc.entries.length}`,
  );
}
