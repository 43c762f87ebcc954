// The child process of lancedb-fts.mjs: builds the table and its FTS index, then times the queries; prints one JSON line.
import { readFileSync } from 'node:fs';
import * as lancedb from '@lancedb/lancedb';

const [input, dir] = process.argv.slice(2);
const { texts, warmUp, queries } = JSON.parse(readFileSync(input, 'utf8'));
const t = performance.now();
const db = await lancedb.connect(dir);
const table = await db.createTable(
  'units',
  texts.map((text, id) => ({ id, text })),
);
await table.createIndex('text', {
  config: lancedb.Index.fts({
    baseTokenizer: 'whitespace',
    lowercase: true,
    stem: false,
    removeStopWords: false,
    asciiFolding: false,
    withPosition: false,
  }),
});
const seconds = (performance.now() - t) / 1000;
const search = (q) =>
  q.trim() === '' ? Promise.resolve([]) : table.query().fullTextSearch(q).select(['id', '_score']).limit(10).toArray();
for (const q of warmUp) await search(q);
const times = [];
for (const q of queries) {
  const s = performance.now();
  await search(q);
  times.push(performance.now() - s);
}
times.sort((a, b) => a - b);
// Linear interpolation between ranks, as src/evaluate/metrics.ts's percentile.
const at = (p) => {
  if (times.length === 0) return 0;
  const pos = (times.length - 1) * p;
  const [lo, hi] = [Math.floor(pos), Math.ceil(pos)];
  return times[lo] + (times[hi] - times[lo]) * (pos - lo);
};
console.log(JSON.stringify({ seconds, p50: at(0.5), p95: at(0.95) }));
table.close();
db.close();
