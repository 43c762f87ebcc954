/**
 * The best `size` (score, row) pairs of a scan, kept in a bounded min-heap of parallel typed arrays (no object per
 * row): a pass over n rows costs O(n log k), not a sort. Ties go to the lower row, whatever order rows arrive in.
 */
export class BestRows {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private count = 0;

  constructor(readonly size: number) {
    this.rows = new Int32Array(size);
    this.scores = new Float64Array(size);
  }

  /** The score a row must beat to enter once the heap is full (−∞ before). */
  get floor(): number {
    return this.count < this.size ? -Infinity : (this.scores[0] as number);
  }

  offer(row: number, score: number): void {
    if (this.size === 0) return;
    if (this.count < this.size) {
      this.rows[this.count] = row;
      this.scores[this.count] = score;
      this.count += 1;
      this.siftUp(this.count - 1);
    } else if (worse(this.scores[0] as number, this.rows[0] as number, score, row)) {
      this.rows[0] = row;
      this.scores[0] = score;
      this.siftDown();
    }
  }

  /** The rows kept, best first (higher score, then lower row), with their scores. */
  sorted(): { rows: number[]; scores: number[] } {
    return bestFirst(this.rows.subarray(0, this.count), this.scores.subarray(0, this.count));
  }

  private swap(a: number, b: number): void {
    const row = this.rows[a] as number;
    this.rows[a] = this.rows[b] as number;
    this.rows[b] = row;
    const s = this.scores[a] as number;
    this.scores[a] = this.scores[b] as number;
    this.scores[b] = s;
  }

  private below(a: number, b: number): boolean {
    return worse(this.scores[a] as number, this.rows[a] as number, this.scores[b] as number, this.rows[b] as number);
  }

  private siftUp(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.below(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(): void {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.count && this.below(left, worst)) worst = left;
      if (right < this.count && this.below(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}

/** True when (scoreA, rowA) ranks below (scoreB, rowB): lower score, or equal score and higher row. */
function worse(scoreA: number, rowA: number, scoreB: number, rowB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && rowA > rowB);
}

/** Parallel rows and scores (a heap's, in any order) best first: higher score, then lower row. */
export function bestFirst(rows: Int32Array, scores: Float64Array): { rows: number[]; scores: number[] } {
  const order = Array.from({ length: rows.length }, (_, i) => i);
  order.sort((a, b) => (scores[b] as number) - (scores[a] as number) || (rows[a] as number) - (rows[b] as number));
  return { rows: order.map((i) => rows[i] as number), scores: order.map((i) => scores[i] as number) };
}
