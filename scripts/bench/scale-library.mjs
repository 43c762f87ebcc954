#!/usr/bin/env node
// A larger law library for the speed benchmark at scale: the law library (bench/law-library, 1,512 laws, 66,634
// units) plus a copy of every other law, its title marked （草案） and each paragraph's sentences in reverse order, so
// the copies hold the same words as real laws (realistic posting lengths and vocabulary) without repeating a unit:
// 95,135 units in all. Writes only to the folder given; ingest it into a root of its own, then measure:
//
//   node scripts/bench/scale-library.mjs ../shared/bench /tmp/law-scaled
//   mkdir /tmp/scaled && npx exam-copilot --root /tmp/scaled ingest /tmp/law-scaled
//   node scripts/bench/speed.mjs ../shared/bench --skip ask,eval,library,library-ask --library-root /tmp/scaled
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [bench, out] = process.argv.slice(2);
if (!bench || !out) {
  console.error('usage: node scripts/bench/scale-library.mjs <bench-dir> <out-dir>');
  process.exit(1);
}
const library = path.join(bench, 'law-library');
if (!existsSync(library)) {
  console.error(`scale-library: ${library} not found; give the benchmark data folder (it holds law-library/)`);
  process.exit(1);
}
if (existsSync(out) && readdirSync(out).length > 0) {
  console.error(`scale-library: ${out} is not empty; give a new folder`);
  process.exit(1);
}
cpSync(library, out, { recursive: true });
const laws = readdirSync(out, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.md'))
  .map((e) => path.join(e.parentPath, e.name))
  .sort();
let copies = 0;
laws.forEach((file, i) => {
  if (i % 2 !== 0) return;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => {
      if (line.startsWith('#')) return `${line}（草案）`;
      const sentences = line.split('。').filter(Boolean);
      return sentences.length > 1 ? `${sentences.reverse().join('。')}。` : line;
    });
  writeFileSync(file.replace(/\.md$/u, '（草案）.md'), lines.join('\n'));
  copies++;
});
console.log(`scale-library: ${laws.length} laws and ${copies} copies in ${out}`);
