// A node:test reporter that ends the run with the tests and suites that were skipped, each with its reason (FAISS,
// OCR or the browser missing on this machine), so a CI log says what it did not check. node's own reporters count
// skipped tests but print their reasons only inline, among thousands of lines.
//
// With EXAM_COPILOT_REQUIRE=faiss,ocr,browser set, a skip whose reason names a required feature fails the run: CI on
// a machine that has them must not pass by skipping. Used by `npm test` next to the spec reporter.
import path from 'node:path';

const FEATURES = {
  faiss: /faiss/i,
  ocr: /\bOCR\b/i,
  browser: /chrom|browser/i,
};

export default async function* skipSummary(source) {
  const skipped = [];
  // The run's totals as one plain closing line (`N passed, N failed, N skipped`), tests only, as node counts them.
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type !== 'suite') {
      if (event.type === 'test:fail') totals.failed++;
      else if (event.data.skip !== undefined && event.data.skip !== false) totals.skipped++;
      else totals.passed++;
    }
    const { skip, name, file } = event.data;
    if (skip === undefined || skip === false) continue;
    // A skipped suite reports each of its tests as skipped too: keep the outermost one only.
    if (skipped.some((s) => s.file === file && s.nesting < event.data.nesting)) continue;
    skipped.push({ name, file, nesting: event.data.nesting, reason: typeof skip === 'string' ? skip : '(no reason given)' });
  }
  const required = (process.env.EXAM_COPILOT_REQUIRE ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = required.filter((r) => !(r in FEATURES));
  if (unknown.length > 0) {
    yield `EXAM_COPILOT_REQUIRE: unknown feature ${unknown.join(', ')} (known: ${Object.keys(FEATURES).join(', ')})\n`;
    process.exitCode = 1;
  }
  const closing = `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`;
  if (skipped.length === 0) {
    yield `\nskipped: none\n${closing}`;
    return;
  }
  const lines = [`\nskipped: ${skipped.length} test(s) or suite(s), not checked on this machine:`];
  const missing = [];
  for (const s of skipped) {
    const where = s.file ? path.relative(process.cwd(), s.file) : '';
    const needed = required.filter((r) => FEATURES[r]?.test(s.reason));
    if (needed.length > 0) missing.push(`${where}: ${s.name}`);
    lines.push(`  - ${where}: ${s.name}: ${s.reason}${needed.length > 0 ? `  [REQUIRED: ${needed.join(', ')}]` : ''}`);
  }
  if (missing.length > 0) {
    lines.push(`EXAM_COPILOT_REQUIRE=${required.join(',')}: ${missing.length} required suite(s) skipped; failing the run`);
    process.exitCode = 1;
  }
  yield `${lines.join('\n')}\n${closing}`;
}
