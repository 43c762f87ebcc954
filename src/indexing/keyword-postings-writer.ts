import { lengthNorm, POSTINGS_MAGIC, POSTINGS_VERSION, postingsLayout, type PostingsHeader } from './keyword-postings.js';
import { PLAIN_TOKEN, unicodeTokens } from './fts-two-stage.js';

/** Grows a typed array by doubling. */
function grown<T extends Uint32Array | Uint16Array>(array: T, make: (n: number) => T): T {
  const next = make(array.length * 2);
  next.set(array);
  return next;
}

/**
 * Collects the postings of `keyword-postings.bin` (see keyword-postings.ts) from the columns given to FTS5, one row at
 * a time in rowid order, and encodes the file. Each column text is analyzer tokens joined by spaces; a token is
 * split as unicode61 splits it (`unicodeTokens`), so the counts are FTS5's, which `matches` checks before the file is
 * written.
 */
export class KeywordPostingsWriter {
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  private postingTerms = new Uint32Array(1 << 16);
  private postingRows = new Uint32Array(1 << 16);
  private postingFrequencies = new Uint16Array(1 << 16);
  private postings = 0;
  private lengths = new Uint32Array(1 << 12);
  private maxRow = 0;
  private documents = 0;
  private tokens = 0;
  private overflow = false;
  /** The current row's doubled weighted frequency per term id, and the ids it holds (zeroed after each row). */
  private rowFrequency = new Uint32Array(1 << 12);
  private readonly rowTerms: number[] = [];

  constructor(private readonly weights: readonly number[]) {}

  /**
   * Adds a row's columns, in FTS column order, each as the analyzer tokens whose join by spaces is the column's text
   * (so no column is split again here). Rows must come in ascending rowid order.
   */
  add(rowid: number, columns: readonly (readonly string[])[]): void {
    let length = 0;
    columns.forEach((tokens, col) => {
      // Doubled, so that the weights (multiples of ½) sum in integers.
      const weight = 2 * (this.weights[col] ?? 1);
      for (const piece of tokens) {
        if (piece === '') continue;
        if (PLAIN_TOKEN.test(piece)) {
          length++;
          this.count(piece, weight);
        } else {
          for (const token of unicodeTokens(piece)) {
            length++;
            this.count(token, weight);
          }
        }
      }
    });
    while (rowid >= this.lengths.length) this.lengths = grown(this.lengths, (n) => new Uint32Array(n));
    this.lengths[rowid] = length;
    this.maxRow = Math.max(this.maxRow, rowid);
    this.documents++;
    this.tokens += length;
    for (const term of this.rowTerms) {
      if (this.postings === this.postingRows.length) {
        this.postingTerms = grown(this.postingTerms, (n) => new Uint32Array(n));
        this.postingRows = grown(this.postingRows, (n) => new Uint32Array(n));
        this.postingFrequencies = grown(this.postingFrequencies, (n) => new Uint16Array(n));
      }
      const doubled = this.rowFrequency[term]!;
      if (doubled > 0xffff) this.overflow = true;
      this.postingTerms[this.postings] = term;
      this.postingRows[this.postings] = rowid;
      this.postingFrequencies[this.postings] = Math.min(doubled, 0xffff);
      this.postings++;
      this.rowFrequency[term] = 0;
    }
    this.rowTerms.length = 0;
  }

  /** Adds a token's weight to the current row's frequency of it. */
  private count(token: string, weight: number): void {
    const id = this.idOf(token);
    if (this.rowFrequency[id] === 0) this.rowTerms.push(id);
    this.rowFrequency[id] = this.rowFrequency[id]! + weight;
  }

  private idOf(token: string): number {
    let id = this.termIds.get(token);
    if (id === undefined) {
      id = this.termNames.length;
      this.termIds.set(token, id);
      this.termNames.push(token);
      if (id >= this.rowFrequency.length) this.rowFrequency = grown(this.rowFrequency, (n) => new Uint32Array(n));
    }
    return id;
  }

  /**
   * Whether these counts are FTS5's: its row count and total tokens (the `%_data` averages record), and its
   * vocabulary's size and summed document frequencies. A difference means this tokenization and unicode61's parted
   * somewhere (a character class of another Unicode version, say); the index then ranks with FTS5 alone.
   */
  matches(fts: { documents: number; tokens: number; terms: number; postings: number }): boolean {
    return (
      !this.overflow &&
      fts.documents === this.documents &&
      fts.tokens === this.tokens &&
      fts.terms === this.termNames.length &&
      fts.postings === this.postings
    );
  }

  /**
   * The file's bytes, stamped with `stamp`. `log` is the natural logarithm FTS5 uses (SQLite's `ln()`, the same C
   * `log`): each term's idf is bm25()'s, log((N − n + ½) / (n + ½)) floored at 1e-6, to the last bit.
   */
  encode(stamp: string, log: (x: number) => number): Buffer {
    const names = this.termNames.map((name, id) => ({ bytes: Buffer.from(name, 'utf8'), id }));
    names.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
    const rank = new Uint32Array(names.length);
    names.forEach((n, i) => (rank[n.id] = i));
    const counts = new Uint32Array(names.length + 1);
    for (let p = 0; p < this.postings; p++) counts[rank[this.postingTerms[p]!]! + 1]!++;
    for (let t = 0; t < names.length; t++) counts[t + 1]! += counts[t]!;
    const header: PostingsHeader = {
      stamp,
      weights: [...this.weights],
      documents: this.documents,
      tokens: this.tokens,
      maxRow: this.maxRow,
      terms: names.length,
      postings: this.postings,
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const termBytes = names.reduce((n, t) => n + t.bytes.length, 0);
    const layout = postingsLayout(header, json.length, termBytes);
    const out = Buffer.alloc(layout.end);
    out.write(POSTINGS_MAGIC, 0, 'latin1');
    out.writeUInt32LE(POSTINGS_VERSION, 4);
    out.writeUInt32LE(json.length, 8);
    json.copy(out, 12);
    const u32 = (at: number, values: ArrayLike<number>): void => {
      for (let i = 0; i < values.length; i++) out.writeUInt32LE(values[i]!, at + 4 * i);
    };
    const averageTokens = this.tokens / this.documents;
    for (let row = 0; row <= this.maxRow; row++) out.writeDoubleLE(lengthNorm(this.lengths[row]!, averageTokens), layout.norms + 8 * row);
    let offset = 0;
    const offsets = new Uint32Array(names.length + 1);
    names.forEach((n, i) => {
      n.bytes.copy(out, layout.terms + offset);
      offset += n.bytes.length;
      offsets[i + 1] = offset;
    });
    u32(layout.termOffsets, offsets);
    u32(layout.termStarts, counts);
    for (let t = 0; t < names.length; t++) {
      const hits = counts[t + 1]! - counts[t]!;
      const idf = log((this.documents - hits + 0.5) / (hits + 0.5));
      out.writeDoubleLE(idf <= 0 ? 1e-6 : idf, layout.idf + 8 * t);
    }
    // A counting sort by term; rows were added in ascending order, so each term's rows stay ascending. Written through
    // typed views of the output (a little-endian machine's own order, as the reader reads them back).
    const next = counts.slice(0, names.length);
    const rows = new Uint32Array(this.postings);
    const frequencies = new Uint16Array(this.postings);
    for (let p = 0; p < this.postings; p++) {
      const at = next[rank[this.postingTerms[p]!]!]!++;
      rows[at] = this.postingRows[p]!;
      frequencies[at] = this.postingFrequencies[p]!;
    }
    Buffer.from(rows.buffer).copy(out, layout.rows);
    Buffer.from(frequencies.buffer).copy(out, layout.frequencies);
    return out;
  }
}
