/**
 * Article headings of statute-like text (`第三十二条 基金托管人由…`), found by their form rather than from a list:
 * `第` + a Chinese or arabic number + `条` at the start of a line, followed by the article's text.
 */

/** An article heading at a line start; not a reference such as `第十条第二款` or `第五条的规定` that wrapped there. */
const ARTICLE_AT_LINE_START =
  /(?:^|\n)[ \t\u3000]*(第[一二三四五六七八九十百千零〇两\d]+条(?:之[一二三四五六七八九十]+)?)(?=[ \t\u3000]|[^\s第的、，,。和或及至与规中所款项])/gu;

/** Where each article heading starts in a text, in order. */
export function articleStarts(text: string): { offset: number; article: string }[] {
  const starts: { offset: number; article: string }[] = [];
  for (const m of text.matchAll(ARTICLE_AT_LINE_START)) {
    const article = m[1];
    if (article === undefined) continue;
    starts.push({ offset: m.index + m[0].indexOf(article), article });
  }
  return starts;
}

/**
 * The articles a span `[start, end)` of a text holds: the one still running at `start` (its heading came earlier in
 * the same text) and every one whose heading starts inside the span.
 */
export function articlesInSpan(starts: readonly { offset: number; article: string }[], start: number, end: number): string[] {
  const out: string[] = [];
  let running: string | null = null;
  for (const s of starts) {
    if (s.offset <= start) running = s.article;
    else if (s.offset < end) out.push(s.article);
  }
  return running !== null ? [running, ...out] : out;
}
