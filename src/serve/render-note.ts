import MarkdownIt, { type PluginWithParams, type StateCore, type Token } from 'markdown-it';
import container from 'markdown-it-container';
import sanitizeHtml from 'sanitize-html';
import { quotePartSpans, quoteParts } from '../text/citation.js';
import { markdownPlain } from '../text/markdown-plain.js';
import { normalizeText } from '../text/normalize-text.js';

/** The `::: name` blocks a note may use (VuePress / markdown-it-container names); each becomes a labelled box. */
const CONTAINERS = ['tip', 'info', 'note', 'warning', 'danger', 'caution', 'important', 'details'] as const;

/** The id of the first highlighted piece: the page's `#hl` anchor and what web/note.js scrolls to. */
export const HIGHLIGHT_ID = 'hl';

/** Shortest part of a quote worth marking when the whole is not found (a quote cut or joined differently). */
const MIN_MARK_CHARS = 6;

/** What sanitize-html keeps: markdown-it's own output (no raw HTML from the note, no images that would load from elsewhere). */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'blockquote', 'ul', 'ol', 'li', 'hr', 'br', 'pre', 'code', 'div'],
    ...['strong', 'em', 's', 'a', 'mark', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  ],
  allowedAttributes: { a: ['href', 'title'], mark: ['id', 'class'], div: ['class'], p: ['class'], ol: ['start'] },
  allowedClasses: { div: ['callout', ...CONTAINERS], p: ['callout-title'], mark: ['quote'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  disallowedTagsMode: 'discard',
};

function createRenderer(): MarkdownIt {
  // Raw HTML in a note is shown as text, not run; links are not auto-created from bare addresses.
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  // The plugin's types describe markdown-it's CommonJS build; the plugin itself is the same for both.
  const plugin = container as unknown as PluginWithParams;
  for (const name of CONTAINERS) {
    md.use(plugin, name, {
      render(tokens: Token[], idx: number): string {
        const token = tokens[idx];
        if (!token || token.nesting !== 1) return '</div>\n';
        // `::: warning 注意`: the words after the name are the box's title, as VuePress shows them.
        const title = token.info.trim().slice(name.length).trim();
        return `<div class="callout ${name}">\n${title ? `<p class="callout-title">${md.utils.escapeHtml(title)}</p>\n` : ''}`;
      },
    });
  }
  // An image would load from elsewhere (the page loads nothing from other sites): its description is shown instead.
  md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx]?.content ?? '');
  return md;
}

let renderer: MarkdownIt | undefined;

/** A text piece of the rendered note: the inline token's children list and the child's index in it. */
interface TextPiece {
  children: Token[];
  child: Token;
  /** Offset of the piece's first non-space character in the squeezed text of the whole note. */
  start: number;
  /** Offsets (in `child.content`) of the piece's non-space characters. */
  positions: number[];
}

function squeeze(text: string): string {
  return text.replace(/\s+/gu, '');
}

/** The text pieces of the note in reading order, and their squeezed text. */
function textPieces(tokens: Token[]): { pieces: TextPiece[]; flat: string } {
  const pieces: TextPiece[] = [];
  let flat = '';
  for (const token of tokens) {
    if (token.type !== 'inline' || !token.children) continue;
    for (const child of token.children) {
      if (child.type !== 'text' && child.type !== 'code_inline') continue;
      const positions: number[] = [];
      for (let i = 0; i < child.content.length; i++) if (!/\s/u.test(child.content[i] ?? '')) positions.push(i);
      pieces.push({ children: token.children, child, start: flat.length, positions });
      flat += squeeze(child.content);
    }
  }
  return { pieces, flat };
}

/** Where the quote is in the squeezed note text: the whole, else its longest leading part, else its longest trailing part. */
function findQuote(flat: string, needle: string): [number, number] | null {
  if (needle === '') return null;
  const floor = Math.min(needle.length, MIN_MARK_CHARS);
  for (let len = needle.length; len >= floor; len = len > 12 ? Math.floor(len * 0.7) : len - 1) {
    const head = flat.indexOf(needle.slice(0, len));
    if (head >= 0) return [head, head + len];
    const tail = flat.indexOf(needle.slice(needle.length - len));
    if (tail >= 0) return [tail, tail + len];
  }
  return null;
}

/**
 * Splits the text pieces overlapping the spans (`[from, to)` of the squeezed text, in order, not overlapping) so each
 * span's part is wrapped in `<mark>`; the first mark carries the `#hl` anchor. A piece is rebuilt once, whatever the
 * number of spans in it.
 */
function markRanges(state: StateCore, pieces: TextPiece[], spans: ReadonlyArray<[number, number]>): void {
  let first = true;
  const make = (type: string, text: string): Token => {
    const t = new state.Token(type, '', 0);
    t.content = text;
    return t;
  };
  for (const piece of pieces) {
    const end = piece.start + piece.positions.length;
    const cuts: Array<[number, number]> = [];
    for (const [from, to] of spans) {
      if (end <= from || piece.start >= to || piece.positions.length === 0) continue;
      const a = piece.positions[Math.max(from - piece.start, 0)] ?? 0;
      const b = (piece.positions[Math.min(to - piece.start, piece.positions.length) - 1] ?? a) + 1;
      cuts.push([a, b]);
    }
    if (cuts.length === 0) continue;
    const content = piece.child.content;
    const replacement: Token[] = [];
    let at = 0;
    for (const [a, b] of cuts) {
      replacement.push(make(piece.child.type, content.slice(at, a)));
      replacement.push(make('html_inline', `<mark class="quote"${first ? ` id="${HIGHLIGHT_ID}"` : ''}>`));
      first = false;
      replacement.push(make(piece.child.type, content.slice(a, b)), make('html_inline', '</mark>'));
      at = b;
    }
    replacement.push(make(piece.child.type, content.slice(at)));
    piece.children.splice(
      piece.children.indexOf(piece.child),
      1,
      ...replacement.filter((t) => t.type === 'html_inline' || t.content !== ''),
    );
  }
}

/** A note rendered for reading. */
export interface RenderedNote {
  /** Sanitised HTML of the note. */
  html: string;
  /** True when (part of) the quote was found and marked; the first mark has id `hl`. */
  marked: boolean;
}

/**
 * Renders a Markdown note as a reader sees it (markdown-it with `::: warning`/`::: tip` boxes), with `quote` marked in
 * the rendered text, and the result sanitised. The note is normalised as ingest normalised it, so a quote taken from
 * its chunks is found; the quote may be plain or still carry the note's markup.
 */
export function renderNote(markdown: string, quote: string): RenderedNote {
  renderer ??= createRenderer();
  const md = renderer;
  const env = {};
  const source = normalizeText(markdown.replace(/^\uFEFF/u, '').replace(/\r\n?/gu, '\n'));
  const state = new md.core.State(source, md, env);
  md.core.process(state);
  const tokens = state.tokens;
  const { pieces, flat } = textPieces(tokens);
  const plain = (text: string): string => squeeze(markdownPlain(normalizeText(text)).text);
  const inner = quote.replace(/^…|…$/gu, '');
  // A quote with an inner ellipsis: each part, found after the one before, and what the ellipsis leaves out unmarked.
  const quoted = quoteParts(quote, plain);
  const parts = quoted.length >= 2 ? quotePartSpans(flat, quoted) : null;
  const whole = parts ? null : findQuote(flat, plain(inner));
  const spans = parts ?? (whole ? [whole] : null);
  if (spans) markRanges(state, pieces, spans);
  const html = sanitizeHtml(md.renderer.render(tokens, md.options, env), SANITIZE);
  return { html, marked: spans !== null };
}
