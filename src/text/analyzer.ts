import { readFileSync } from 'node:fs';
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import { stemmer } from 'stemmer';

/**
 * The one text analyzer shared by the keyword index, the LSA embedder and the offline answerer,
 * so index time and query time always cut text the same way.
 */
export interface Analyzer {
  /** Search-mode tokens (jieba `cutForSearch`: long words plus their sub-words), lowercased and stemmed, no punctuation or stopwords. */
  tokens(text: string): string[];
  /** Identifies the dictionary content, so an index built with another dictionary can be detected. */
  readonly fingerprint: string;
}

const PUNCT_OR_SPACE = /^[\p{P}\p{S}\p{Z}\s]+$/u;
const LATIN_WORD = /^[a-z][a-z'-]*$/;

/** Function words that carry no evidence in exam stems; dropping them keeps BM25 and option scoring on content words. */
const STOPWORDS = new Set([
  '的', '了', '和', '与', '及', '或', '是', '在', '为', '对', '由', '将', '把', '被', '等', '中', '其', '之', '以', '于', '也', '就', '都', '而',
  '下列', '以下', '关于', '说法', '正确', '错误', '不正确', '不', '属于', '不属于', '选项', '哪', '哪个', '哪些', '哪项', '何', '什么', '多少', '是否',
  '包括', '不包括', '下面', '有关', '表述', '描述', '一项', '一个', '应当', '可以', '根据', '按照', '（', '）',
  'the', 'a', 'an', 'of', 'to', 'in', 'and', 'or', 'is', 'are', 'be', 'for', 'on', 'with', 'as', 'by', 'which', 'what', 'not', 'except',
]);

/** Normalises width and case so ＡＢＣ, ABC and abc index alike (NFKC folds full-width forms). */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Reads user dictionary files: one term per line, optionally `term [freq] [tag]`; `#` starts a comment. */
export function readUserDictionary(files: readonly string[]): { lines: string[]; missing: string[] } {
  const lines: string[] = [];
  const missing: string[] = [];
  for (const file of files) {
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch {
      missing.push(file);
      continue;
    }
    for (const raw of content.split(/\r?\n/)) {
      const line = raw.replace(/#.*/, '').trim();
      if (!line) continue;
      const [term, freq, tag] = line.split(/\s+/);
      if (!term) continue;
      // A high default frequency makes jieba keep the whole term as one word.
      lines.push(`${term} ${freq ?? '100000'} ${tag ?? 'n'}`);
    }
  }
  return { lines, missing };
}

/** Builds an analyzer over jieba's default dictionary plus the given user-dictionary lines (`term freq tag`). */
export function createAnalyzer(userDictionary: readonly string[] = []): Analyzer {
  const jieba = Jieba.withDict(dict);
  const sorted = [...new Set(userDictionary)].sort();
  if (sorted.length > 0) jieba.loadDict(Buffer.from(sorted.join('\n') + '\n', 'utf8'));
  const fingerprint = `jieba-search+user:${sorted.length}:${simpleHash(sorted.join('\n'))}`;
  return {
    fingerprint,
    tokens(text: string): string[] {
      const out: string[] = [];
      for (const piece of jieba.cutForSearch(normalizeText(text), true)) {
        const token = piece.trim();
        if (!token || PUNCT_OR_SPACE.test(token) || STOPWORDS.has(token)) continue;
        out.push(LATIN_WORD.test(token) ? stemmer(token) : token);
      }
      return out;
    },
  };
}

/** FNV-1a, enough to tell dictionaries apart in a fingerprint. */
function simpleHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
