import { normalizeText } from '../text/normalize-text.js';
import { pushHeading, type OpenHeading } from './headings.js';
import type { Segment } from './segment.js';

/** A note read into segments, and its headings in order for the outline (`toc`). */
export interface ReadNote {
  segments: Segment[];
  /** Every Markdown heading, as written (normalised), with its level (`#` = 1); none for plain text. */
  headings: OpenHeading[];
}

/**
 * Splits a Markdown or plain-text note into segments, and keeps its headings for the outline (a library of Markdown
 * laws has a table of contents too). Markdown headings give the path (`headings`, every level) and the compatibility
 * fields: `#` = chapter, `##` = section, `###` and deeper = subsection. Plain text (or Markdown without headings) is
 * one segment. The text is normalised first (`normalizeText`); offsets are into that text.
 */
export function readNote(text: string, markdown: boolean): ReadNote {
  const segments: Segment[] = [];
  const headings: OpenHeading[] = [];
  let chapter = '';
  let section = '';
  let subsection = '';
  let path: OpenHeading[] = [];
  let current: Segment | null = null;
  let offset = 0;
  const body = normalizeText(text.replace(/^\uFEFF/u, '').replace(/\r\n?/gu, '\n'));
  let inFence = false;
  const flush = (): void => {
    if (current && current.text.trim() !== '') segments.push(current);
    current = null;
  };
  for (const rawLine of body.split('\n')) {
    const lineStart = offset;
    offset += rawLine.length + 1;
    if (markdown && /^\s*(```|~~~)/u.test(rawLine)) inFence = !inFence;
    const h = markdown && !inFence ? /^(#{1,6})\s+(.+?)\s*#*\s*$/u.exec(rawLine) : null;
    if (h?.[1] && h[2]) {
      flush();
      const level = h[1].length;
      const title = h[2].trim();
      path = pushHeading(path, { title, level });
      headings.push({ title, level });
      if (level === 1) [chapter, section, subsection] = [title, '', ''];
      else if (level === 2) [section, subsection] = [title, ''];
      else subsection = title;
      continue;
    }
    if (markdown && /^<!--.*-->\s*$/u.test(rawLine)) continue;
    if (!current) {
      if (rawLine.trim() === '') continue;
      current = { headings: path.map((p) => p.title), chapter, section, subsection, text: '', start: lineStart, pages: [] };
    }
    // Offsets stay true to the file: the segment text is the file's own characters from its start.
    if (rawLine.trim() !== '') current.text = body.slice(current.start, lineStart + rawLine.trimEnd().length);
  }
  flush();
  return { segments, headings };
}
