import { seededRandom } from '../seeded-random.js';
import type { EvalRow } from './eval-types.js';

/** A seeded sample of `n` rows, returned in their original order. */
export function sampleRows<T>(rows: readonly T[], n: number, seed: number): T[] {
  if (n >= rows.length) return [...rows];
  const idx = rows.map((_, i) => i);
  const rand = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rand() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j] ?? 0, idx[i] ?? 0];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => rows[i] as T);
}

/** The rows a run answers: `--sample` (seeded, file order kept), then `--limit`. */
export function selectRows(all: readonly EvalRow[], options: { sample?: number; seed?: number; limit?: number }): EvalRow[] {
  let rows = [...all];
  if (options.sample !== undefined) rows = sampleRows(rows, options.sample, options.seed ?? 1);
  if (options.limit !== undefined) rows = rows.slice(0, options.limit);
  return rows;
}
