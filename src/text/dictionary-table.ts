import { PagedBytes } from './paged-bytes.js';

/**
 * jieba's default dictionary as a compact lookup table that loads in a few milliseconds: a hash table of every
 * word and every prefix of a word, over UTF-16 code units, with each word's frequency and tag.
 *
 * Why: jieba builds its trie from the whole 349,000-word dictionary on every start, which costs more than the
 * CLI's own start-up. Segmenting a text only ever consults the words that occur inside that text (and the sum
 * of all frequencies), so the analyzer can find those words here and hand jieba just them (`createAnalyzer`).
 */
export interface DictionaryTable {
  /** Words in the table (ids 0 … wordCount - 1). */
  readonly wordCount: number;
  /** Sum of every word's frequency: jieba's `total`, the denominator of each word's probability. */
  readonly totalFrequency: number;
  /** Calls `visit` with the id of every dictionary word that occurs in `text`, once per occurrence. */
  forEachWordIn(text: string, visit: (id: number) => void): void;
  /** Id of `word`, or -1 when it is not a dictionary word. */
  wordId(word: string): number;
  word(id: number): string;
  frequency(id: number): number;
  tag(id: number): string;
}

/** A table just built, with its serialized form (what `readDictionaryTable` reads back). */
export interface BuiltDictionaryTable extends DictionaryTable {
  readonly bytes: Uint8Array;
}

const MAGIC = 0x4a434345; // "ECCJ" little-endian
const FORMAT = 1;
const HEADER_WORDS = 12;
/** Keys store their length in 5 bits and their offset in the rest of a 32-bit word. */
const MAX_KEY_CHARS = 32;
const MAX_CHARS = 2 ** 27;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** One parsed line of a jieba dictionary, split the way jieba-rs splits it (see `splitDictionaryLine`). */
export interface DictionaryEntry {
  word: string;
  /** null: the frequency field is not a whole number jieba would accept. */
  freq: number | null;
  tag: string;
}

/** The characters Rust's `split_whitespace` splits on (Unicode White_Space), which jieba-rs uses per line. */
const RUST_WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/**
 * Splits one dictionary line exactly as jieba-rs's `load_dict` does: word, then frequency (0 when absent), then
 * tag (empty when absent); null for a line without a word.
 */
export function splitDictionaryLine(line: string): DictionaryEntry | null {
  const fields = line.split(RUST_WHITESPACE).filter((f) => f !== '');
  const word = fields[0];
  if (word === undefined) return null;
  const rawFreq = fields[1];
  // Rust's usize parser accepts an optional leading '+'; keep to exact integers.
  const freq = rawFreq === undefined ? 0 : /^\+?\d{1,15}$/.test(rawFreq) ? Number(rawFreq) : null;
  return { word, freq, tag: fields[2] ?? '' };
}

/** FNV-1a over UTF-16 code units, one step (the table and the lookups hash the same way). */
function step(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

/** Whether a UTF-16 code unit is White_Space other than space and newline (Rust splits on it, `parsePlain` does not). */
function isOtherSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d && c !== 0x0a) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * Reads `word freq tag` lines separated by single characters, calling `entry` with the word's span, its frequency
 * (0 when absent, null when invalid) and its tag. Char by char, since the dictionary has 349,000 lines.
 * False (before any call) when the text uses other whitespace: the caller then splits lines as jieba-rs does.
 */
function parsePlain(text: string, entry: (from: number, to: number, freq: number | null, tag: string) => void): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x3001 && isOtherSpace(c)) return false;
  }
  let i = 0;
  /** The next space-separated field of the line: [from, to), or null at the end of the line. */
  const field = (): [number, number] | null => {
    while (i < n && text.charCodeAt(i) === 0x20) i++;
    if (i >= n || text.charCodeAt(i) === 0x0a) return null;
    const from = i;
    while (i < n && text.charCodeAt(i) !== 0x20 && text.charCodeAt(i) !== 0x0a) i++;
    return [from, i];
  };
  while (i < n) {
    const word = field();
    if (word) {
      const f = field();
      let freq: number | null = 0;
      if (f) {
        const raw = text.slice(f[0], f[1]);
        freq = /^\+?\d{1,15}$/.test(raw) ? Number(raw) : null;
      }
      const tag = f ? field() : null;
      entry(word[0], word[1], freq, tag ? text.slice(tag[0], tag[1]) : '');
    }
    // Rest of the line (jieba-rs reads three fields at most).
    while (i < n && text.charCodeAt(i) !== 0x0a) i++;
    i++;
  }
  return true;
}

/**
 * Builds the table from a dictionary file's text (one `word freq tag` per line). A repeated word keeps its last
 * frequency and first tag, as jieba does. Throws when a line has a frequency jieba would reject, or the
 * dictionary exceeds the format's limits; the caller then loads jieba's dictionary the ordinary way.
 * Works on typed arrays and hashes (no string per prefix), since it runs on ingest's first build of a root.
 */
export function buildDictionaryTable(text: string): BuiltDictionaryTable {
  if (text.length >= MAX_CHARS) throw new Error('dictionary too large for the table format');
  // Keys (words, then prefixes that are not words) as offset | (length - 1) << 27 into `codes`.
  const codes = new Uint16Array(text.length);
  let chars = 0;
  let keyInfo = new Uint32Array(1 << 16);
  let keyCount = 0;
  const freqs: number[] = [];
  const tagOf: number[] = [];
  const tagIndex = new Map<string, number>();
  let slotCount = 1 << 16;
  let slots = new Uint32Array(slotCount);
  const hashOf = (offset: number, length: number): number => {
    let h = FNV_OFFSET;
    for (let i = 0; i < length; i++) h = step(h, codes[offset + i] ?? 0);
    return h;
  };
  /** Slot holding the key equal to codes[offset, offset + length), or the empty slot where it belongs. */
  const slotOf = (hash: number, offset: number, length: number): number => {
    const mask = slotCount - 1;
    let slot = hash & mask;
    for (;;) {
      const value = slots[slot] ?? 0;
      if (value === 0) return slot;
      const info = keyInfo[value - 1] ?? 0;
      if ((info >>> 27) + 1 === length) {
        const at = info & (MAX_CHARS - 1);
        let i = 0;
        while (i < length && codes[at + i] === codes[offset + i]) i++;
        if (i === length) return slot;
      }
      slot = (slot + 1) & mask;
    }
  };
  const addKey = (slot: number, offset: number, length: number): void => {
    if (keyCount === keyInfo.length) {
      const grown = new Uint32Array(keyInfo.length * 2);
      grown.set(keyInfo);
      keyInfo = grown;
    }
    keyInfo[keyCount++] = offset | ((length - 1) << 27);
    slots[slot] = keyCount;
    if (keyCount * 1.6 > slotCount) {
      // Grow and rehash: every key's characters are in `codes`.
      slotCount *= 2;
      slots = new Uint32Array(slotCount);
      for (let key = 0; key < keyCount; key++) {
        const info = keyInfo[key] ?? 0;
        const at = info & (MAX_CHARS - 1);
        const len = (info >>> 27) + 1;
        slots[slotOf(hashOf(at, len), at, len)] = key + 1;
      }
    }
  };
  const addWord = (word: string, freq: number | null, tag: string): void => {
    if (freq === null || freq >= 2 ** 32) throw new Error(`dictionary word "${word}" has an invalid frequency`);
    if (word.length > MAX_KEY_CHARS) throw new Error(`dictionary word "${word}" is longer than ${MAX_KEY_CHARS}`);
    for (let i = 0; i < word.length; i++) codes[chars + i] = word.charCodeAt(i);
    const slot = slotOf(hashOf(chars, word.length), chars, word.length);
    const existing = slots[slot] ?? 0;
    if (existing !== 0) {
      freqs[existing - 1] = freq; // a repeated word: the last frequency wins
      return;
    }
    let t = tagIndex.get(tag);
    if (t === undefined) {
      t = tagIndex.size;
      tagIndex.set(tag, t);
    }
    addKey(slot, chars, word.length);
    freqs.push(freq);
    tagOf.push(t);
    chars += word.length;
  };
  if (!parsePlain(text, (from, to, freq, tag) => addWord(text.slice(from, to), freq, tag))) {
    for (const line of text.split('\n')) {
      const entry = splitDictionaryLine(line);
      if (entry) addWord(entry.word, entry.freq, entry.tag);
    }
  }
  const wordCount = keyCount;
  if (tagIndex.size > 255) throw new Error('dictionary has more than 255 tags');
  // Every proper prefix of a word that is not already a key, pointing into that word's characters.
  for (let id = 0; id < wordCount; id++) {
    const info = keyInfo[id] ?? 0;
    const at = info & (MAX_CHARS - 1);
    const length = (info >>> 27) + 1;
    let h = FNV_OFFSET;
    for (let k = 1; k < length; k++) {
      h = step(h, codes[at + k - 1] ?? 0);
      const slot = slotOf(h, at, k);
      if ((slots[slot] ?? 0) === 0) addKey(slot, at, k);
    }
  }
  const tags = [...tagIndex.keys()];
  const tagBytes = Buffer.from(tags.join('\n'), 'utf8');
  const layout = sections(slotCount, keyCount, wordCount, chars, tagBytes.length);
  const bytes = new Uint8Array(layout.size);
  const header = new Uint32Array(bytes.buffer, 0, HEADER_WORDS);
  const total = freqs.reduce((a, b) => a + b, 0);
  header.set([MAGIC, FORMAT, slotCount, keyCount, wordCount, chars, tagBytes.length, total % 2 ** 32, Math.floor(total / 2 ** 32)]);
  const v = views(bytes, layout);
  v.slots.set(slots);
  v.keyInfo.set(keyInfo.subarray(0, keyCount));
  v.freq.set(freqs);
  v.chars.set(codes.subarray(0, chars));
  v.tag.set(tagOf);
  bytes.set(tagBytes, layout.tags);
  return Object.assign(tableOver(PagedBytes.ofArray(bytes)), { bytes });
}

/**
 * Reads a serialized table, checking its structure; throws an Error saying what is wrong when the bytes are not
 * a complete table of this format (the caller rebuilds it). From a file (`PagedBytes.ofFile`), only the header is
 * read here: each lookup then reads the few bytes it needs.
 */
export function readDictionaryTable(source: Uint8Array | PagedBytes): DictionaryTable {
  const bytes = source instanceof PagedBytes ? source : PagedBytes.ofArray(source);
  if (bytes.size < HEADER_WORDS * 4) throw new Error('too short');
  if (bytes.u32(0) !== MAGIC) throw new Error('not a dictionary table');
  if (bytes.u32(4) !== FORMAT) throw new Error(`format ${bytes.u32(4)}, expected ${FORMAT}`);
  const [slotCount, keyCount, wordCount] = [bytes.u32(8), bytes.u32(12), bytes.u32(16)];
  if (slotCount < 1024 || (slotCount & (slotCount - 1)) !== 0 || keyCount >= slotCount || wordCount > keyCount) {
    throw new Error('inconsistent header');
  }
  const layout = sections(slotCount, keyCount, wordCount, bytes.u32(20), bytes.u32(24));
  if (layout.size !== bytes.size) throw new Error(`${bytes.size} bytes, expected ${layout.size} (truncated?)`);
  return tableOver(bytes);
}

interface Layout {
  slotCount: number;
  keyCount: number;
  wordCount: number;
  chars: number;
  tagLength: number;
  slots: number;
  keyInfo: number;
  freq: number;
  charsAt: number;
  tag: number;
  tags: number;
  size: number;
}

/** Byte offsets of each array: 32-bit arrays first, then the 16-bit chars, then bytes, so each stays aligned. */
function sections(slotCount: number, keyCount: number, wordCount: number, chars: number, tagLength: number): Layout {
  const slots = HEADER_WORDS * 4;
  const keyInfo = slots + slotCount * 4;
  const freq = keyInfo + keyCount * 4;
  const charsAt = freq + wordCount * 4;
  const tag = charsAt + chars * 2;
  const tags = tag + wordCount;
  return { slotCount, keyCount, wordCount, chars, tagLength, slots, keyInfo, freq, charsAt, tag, tags, size: tags + tagLength };
}

/** Typed-array views of each section of a table being built. */
function views(bytes: Uint8Array, l: Layout) {
  const b = bytes.buffer;
  const o = bytes.byteOffset;
  return {
    slots: new Uint32Array(b, o + l.slots, l.slotCount),
    keyInfo: new Uint32Array(b, o + l.keyInfo, l.keyCount),
    freq: new Uint32Array(b, o + l.freq, l.wordCount),
    chars: new Uint16Array(b, o + l.charsAt, l.chars),
    tag: new Uint8Array(b, o + l.tag, l.wordCount),
  };
}

/** The lookups over a serialized table, reading each value from `bytes` where it lies. */
function tableOver(bytes: PagedBytes): DictionaryTable {
  const [slotCount, keyCount, wordCount, chars, tagLength, totalLow, totalHigh] = [8, 12, 16, 20, 24, 28, 32].map((o) => bytes.u32(o)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const layout = sections(slotCount, keyCount, wordCount, chars, tagLength);
  const tags = Buffer.from(bytes.slice(layout.tags, tagLength)).toString('utf8').split('\n');
  const mask = slotCount - 1;
  const slotAt = (slot: number): number => bytes.u32(layout.slots + slot * 4);
  const keyInfoAt = (key: number): number => (key < keyCount ? bytes.u32(layout.keyInfo + key * 4) : 0);
  const codeAt = (i: number): number => bytes.u16(layout.charsAt + i * 2);
  // Corrupt key data must not read outside the arrays: every key lies within the chars.
  const keyAt = (key: number): { offset: number; length: number } => {
    const info = keyInfoAt(key);
    const offset = info & (MAX_CHARS - 1);
    const length = (info >>> 27) + 1;
    return offset + length <= chars ? { offset, length } : { offset: 0, length: 0 };
  };
  /** Key id of text[start, end) given its hash, or -1 when it is neither a word nor a prefix of one. */
  const find = (hash: number, text: string, start: number, end: number): number => {
    const length = end - start;
    let slot = hash & mask;
    for (let probes = 0; probes < slotCount; probes++) {
      const value = slotAt(slot);
      if (value === 0) return -1;
      const info = keyInfoAt(value - 1);
      if ((info >>> 27) + 1 === length) {
        const offset = info & (MAX_CHARS - 1);
        let i = 0;
        // Bounded by the chars array, so corrupt key data cannot read outside it.
        while (i < length && offset + i < chars && codeAt(offset + i) === text.charCodeAt(start + i)) i++;
        if (i === length) return value - 1;
      }
      slot = (slot + 1) & mask;
    }
    return -1;
  };
  const word = (id: number): string => {
    const { offset, length } = keyAt(id);
    let w = '';
    for (let i = 0; i < length; i++) w += String.fromCharCode(codeAt(offset + i));
    return w;
  };
  return {
    wordCount,
    totalFrequency: totalHigh * 2 ** 32 + totalLow,
    forEachWordIn(text, visit) {
      for (let start = 0; start < text.length; start++) {
        let h = FNV_OFFSET;
        const limit = Math.min(text.length, start + MAX_KEY_CHARS);
        for (let end = start + 1; end <= limit; end++) {
          h = step(h, text.charCodeAt(end - 1));
          const key = find(h, text, start, end);
          if (key < 0) break; // no word starts with text[start, end)
          if (key < wordCount) visit(key);
        }
      }
    },
    wordId(w) {
      if (w.length === 0 || w.length > MAX_KEY_CHARS) return -1;
      let h = FNV_OFFSET;
      for (let i = 0; i < w.length; i++) h = step(h, w.charCodeAt(i));
      const key = find(h, w, 0, w.length);
      return key < wordCount ? key : -1;
    },
    word,
    frequency: (id) => (id < wordCount ? bytes.u32(layout.freq + id * 4) : 0),
    tag: (id) => tags[id < wordCount ? bytes.u8(layout.tag + id) : 0] ?? '',
  };
}
