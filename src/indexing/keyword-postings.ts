import { closeSync, fstatSync, openSync } from 'node:fs';
import { endianness } from 'node:os';
import { readFully } from '../read-fully.js';
import type { Bm25Weights, RankedRow } from './fts-ranker.js';
import { postingsWorkspace } from './postings-kernels.js';
import type { QueryTerm } from './fts-query.js';
import { unicodeTokens } from './fts-two-stage.js';

/**
 * The keyword index's postings in a flat file beside `sqlite_fts.db`, so a query is ranked by a pass over its terms'
 * postings in memory rather than by FTS5. FTS5 decodes and scores a posting list through its own iterators, 20–50 ms
 * a question at 66k chunks; the same exact sums over typed arrays take well under a millisecond. The file holds what
 * FTS5's bm25() reads (which rows hold each token, the token's column-weighted frequency there, every row's length,
 * the totals), counted from the very column texts FTS5 was given and checked against FTS5's own totals when written
 * (`keyword-postings-writer.ts`), so a ranking here is the one-stage FTS5 ranking, score for score.
 *
 * Layout, little-endian: the magic `ECKP`; the format version (u32); the header's byte length (u32) and its JSON
 * (`PostingsHeader`); zero padding to 4 bytes; then in order, each 4-byte aligned: every row's length term of bm25
 * (`lengthNorm`, f64 × rows + 1, by FTS rowid), each term's byte offset into the term bytes (u32 × terms + 1), each term's first posting
 * (u32 × terms + 1), each term's idf (f64 × terms), the terms' UTF-8 bytes in byte order (padded), the postings' rows
 * (u32 × postings, ascending per term), and their weighted frequencies doubled (u16 × postings: the column weights are
 * multiples of ½). The idf is stored rather than computed here because it is FTS5's: the C library's `log`, which
 * differs from V8's `Math.log` in the last bit for about one value in thirty.
 */
export const KEYWORD_POSTINGS_FILE = 'keyword-postings.bin';
export const POSTINGS_MAGIC = 'ECKP';
export const POSTINGS_VERSION = 1;

/** What the file says of itself, as JSON after the magic and version. */
export interface PostingsHeader {
  /** Written in the same build's `meta` table too (`postings_stamp`): a file of another build is not read. */
  stamp: string;
  /** bm25() column weights the frequencies were summed with, in FTS column order. */
  weights: number[];
  /** FTS5's row count and total tokens (all columns): the idf's N and the average length. */
  documents: number;
  tokens: number;
  /** The highest rowid (rows are numbered from 1). */
  maxRow: number;
  terms: number;
  postings: number;
}

/** Byte offsets of the sections after the header. */
export function postingsLayout(header: PostingsHeader, headerBytes: number, termBytes: number) {
  const align = (n: number): number => Math.ceil(n / 4) * 4;
  const norms = align(12 + headerBytes);
  const termOffsets = norms + 8 * (header.maxRow + 1);
  const termStarts = termOffsets + 4 * (header.terms + 1);
  const idf = termStarts + 4 * (header.terms + 1);
  const terms = idf + 8 * header.terms;
  const rows = align(terms + termBytes);
  const frequencies = rows + 4 * header.postings;
  return { norms, termOffsets, termStarts, idf, terms, rows, frequencies, end: frequencies + 2 * header.postings };
}

/** The column weights in FTS column order. */
export function weightList(w: Bm25Weights): number[] {
  return [w.content, w.book, w.chapter, w.section, w.figure_ref];
}

/** An open postings file: exact one-stage bm25 rankings for queries of single tokens, without filters. */
export interface KeywordPostings {
  /**
   * The best k rows for the terms, as FTS5's `ORDER BY bm25(...)` over the OR of their phrases would rank them (equal
   * scores by rowid); null when a term is a phrase of several tokens, which only FTS5 can match.
   */
  rank(terms: readonly QueryTerm[], k: number): RankedRow[] | null;
  close(): void;
}

/** Postings kept in memory once read (6 bytes each: 24 MB), about all of a 66k-chunk library's. */
const HELD_POSTINGS = 1 << 22;

const K1 = 1.2;
const B = 0.75;

/**
 * bm25()'s length term for a row of `tokens` tokens (all columns), k1 · (1 − b + b · |D| / avgdl), computed as FTS5
 * computes it for every row it scores, so the same double.
 */
export function lengthNorm(tokens: number, averageTokens: number): number {
  return K1 * (1 - B + (B * tokens) / averageTokens);
}

/**
 * Opens the postings file written with `stamp` and `weights`, or returns null when there is none, it is of another
 * build or other weights, or it cannot be read: the caller then ranks with FTS5, as an index written before the file
 * existed does. Only the header, the rows' length terms and the vocabulary are read now; a query reads its terms' postings.
 */
export function openKeywordPostings(file: string, stamp: string | undefined, weights: Bm25Weights): KeywordPostings | null {
  // The arrays are read straight into typed arrays, in the machine's order: a big-endian machine ranks with FTS5.
  if (!stamp || endianness() !== 'LE') return null;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const opened = readPostings(fd, stamp, weightList(weights));
    if (!opened) closeSync(fd);
    return opened;
  } catch {
    // A file that does not read, or a postings kernel that does not load (which doctor reports): FTS5 ranks instead,
    // the same ranking.
    closeSync(fd);
    return null;
  }
}

function readPostings(fd: number, stamp: string, weights: readonly number[]): KeywordPostings | null {
  const size = fstatSync(fd).size;
  if (size < 12) return null;
  const head = readBytes(fd, 0, 12);
  if (head.toString('latin1', 0, 4) !== POSTINGS_MAGIC) return null;
  if (head.readUInt32LE(4) !== POSTINGS_VERSION) return null;
  const headerBytes = head.readUInt32LE(8);
  if (12 + headerBytes > size) return null;
  const json = readBytes(fd, 12, headerBytes);
  const header = JSON.parse(json.toString('utf8')) as PostingsHeader;
  if (header.stamp !== stamp || header.weights.length !== weights.length || header.weights.some((w, i) => w !== weights[i])) return null;
  const probe = postingsLayout(header, headerBytes, 0);
  // The sums and the selection run in the postings kernel (`postings-kernels.ts`), whose memory holds every row's
  // length term, one score per row (zeroed after every query) and the rows a query reached, in the order first reached.
  // A file cut short fails a read below (caught by the caller) or the size check.
  const workspace = postingsWorkspace(header.maxRow);
  const normBytes = workspace.normBytes();
  readFully(fd, normBytes, 0, normBytes.byteLength, probe.norms, 'the keyword postings file');
  const termOffsets = readU32(fd, probe.termOffsets, header.terms + 1);
  const termStarts = readU32(fd, probe.termStarts, header.terms + 1);
  const termBytes = termOffsets[header.terms] ?? 0;
  const layout = postingsLayout(header, headerBytes, termBytes);
  if (layout.end !== size) return null;
  const idfs = readF64(fd, layout.idf, header.terms);
  const termText = readBytes(fd, layout.terms, termBytes);

  /** The term's index in the sorted vocabulary, or −1. */
  const find = (token: string): number => {
    const wanted = Buffer.from(token, 'utf8');
    let lo = 0;
    let hi = header.terms - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = termText.compare(wanted, 0, wanted.length, termOffsets[mid], termOffsets[mid + 1]);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  // Terms' postings once read, up to about the whole file of a library (the oldest dropped first): the common words
  // of a subject come back in question after question, and an option repeats its stem's.
  const held = new Map<number, { rows: Uint32Array; doubled: Uint16Array }>();
  let heldPostings = 0;
  const postingsOf = (term: number): { rows: Uint32Array; doubled: Uint16Array } => {
    const known = held.get(term);
    if (known) return known;
    const start = termStarts[term]!;
    const count = termStarts[term + 1]! - start;
    const read = { rows: readU32(fd, layout.rows + 4 * start, count), doubled: readU16(fd, layout.frequencies + 2 * start, count) };
    for (const [oldest, postings] of held) {
      if (heldPostings + count <= HELD_POSTINGS) break;
      held.delete(oldest);
      heldPostings -= postings.rows.length;
    }
    if (count <= HELD_POSTINGS) {
      held.set(term, read);
      heldPostings += count;
    }
    return read;
  };

  return {
    rank(terms, k) {
      const found: number[] = [];
      for (const t of terms) {
        const tokens = unicodeTokens(t.term);
        if (tokens.length !== 1) return null;
        found.push(find(tokens[0]!));
      }
      if (k <= 0) return [];
      // The sums are built term by term in query order, as bm25() sums its phrases, so the floating-point result is
      // FTS5's to the last bit and equal scores stay equal.
      found.forEach((term, i) => {
        if (term < 0) return;
        const { rows, doubled } = postingsOf(term);
        // A phrase written twice in the MATCH expression is summed twice, as bm25() does.
        workspace.add(rows, doubled, idfs[term]!, K1, terms[i]!.repeat);
      });
      // The best k of the rows reached (equal scores to the lower rowid, as FTS5 orders them).
      const { rows, scores: kept } = workspace.best(k);
      return rows.map((row, i) => ({ row, score: kept[i]! }));
    },
    close() {
      closeSync(fd);
    },
  };
}

/** `count` u32 values at `position`, in the machine's order. */
function readU32(fd: number, position: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  readFully(fd, new Uint8Array(out.buffer), 0, out.byteLength, position, 'the keyword postings file');
  return out;
}

/** `count` u16 values at `position`, in the machine's order. */
function readU16(fd: number, position: number, count: number): Uint16Array {
  const out = new Uint16Array(count);
  readFully(fd, new Uint8Array(out.buffer), 0, out.byteLength, position, 'the keyword postings file');
  return out;
}

/** `count` f64 values at `position`, in the machine's order. */
function readF64(fd: number, position: number, count: number): Float64Array {
  const out = new Float64Array(count);
  readFully(fd, new Uint8Array(out.buffer), 0, out.byteLength, position, 'the keyword postings file');
  return out;
}

/** `length` bytes at `position`. */
function readBytes(fd: number, position: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  readFully(fd, out, 0, length, position, 'the keyword postings file');
  return out;
}
