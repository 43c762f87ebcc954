import type { Chunk } from '../types.js';
import { exactForm } from './claim-forms.js';

/**
 * Which document a sentence speaks of, for a question that names one by its title (《证券投资基金管理暂行办法》的颁布):
 * a compilation of laws, or a textbook quoting several, holds sentences of other documents that share the question's
 * words (1999年…《期货交易管理暂行条例》同时废止; 本办法自1998年4月1日起施行 in 证券、期货投资咨询管理暂行办法).
 * Generic to how laws are named and compiled, not to any one book.
 */

/** A document speaking of itself: 本法, 本办法, 本条例 (its title is in its book or headings, not in the sentence). */
const SELF_REFERENCE =
  /本(?:法|办法|条例|规定|规则|准则|指引|细则|决定|通知|意见)(?![\p{Script=Han}])|本(?:法|办法|条例|规定|规则|准则|指引|细则)(?=所称|自|规定|第|的)/u;

/** A heading that is a document's name: a law, regulation or rule (证券投资基金法, …咨询管理暂行办法, …运作管理办法). */
const DOCUMENT_NAME = /(?:法|办法|条例|规定|规则|准则|指引|细则)$/u;

/** The documents a text names by title (《…》), in exact form without the brackets. */
export function titlesOf(text: string): string[] {
  return [...text.matchAll(/《([^《》]{2,40})》/gu)].map((m) => exactForm(m[1] ?? ''));
}

/** The book name and headings of a passage that name a document, without numbering and dates (证券投资基金法(2015-04-24)). */
function documentHeadings(chunk: Chunk): string[] {
  return [chunk.book, chunk.chapter, chunk.section, ...(chunk.headings ?? [])]
    .map((h) =>
      h
        .replace(/[（(][^（）()]*[)）]\s*$/u, '')
        .replace(/^\s*(?:第[一二三四五六七八九十百零\d]+[编章节条]|[\d.]+)\s*/u, '')
        .trim(),
    )
    .filter((h) => [...h].length >= 4 && DOCUMENT_NAME.test(h));
}

/**
 * Whether a sentence of a passage speaks of another document than the ones the question names by title (`titles`, in
 * exact form): neither it nor its headings (`framed`: the sentence with the passage's book and headings) name them,
 * and it names another by its title, or stands in another (its book or a heading is a document's name:
 * 第十二章 证券、期货投资咨询管理暂行办法), or says 本办法 of one its headings do not name. False when the question names
 * no document.
 */
export function inAnotherDocument(sentence: string, chunk: Chunk, framed: string, titles: readonly string[]): boolean {
  if (titles.length === 0) return false;
  const form = exactForm(framed);
  if (titles.some((t) => form.includes(t))) return false;
  const named = titlesOf(sentence);
  if (named.length > 0 && !named.some((t) => titles.includes(t))) return true;
  return SELF_REFERENCE.test(sentence) || documentHeadings(chunk).length > 0;
}
