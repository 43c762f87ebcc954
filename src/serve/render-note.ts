import MarkdownIt, { type PluginWithParams, type StateCore, type Token } from 'markdown-it';
import container from 'markdown-it-container';
import sanitizeHtml from 'sanitize-html';
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
/**
 * Where a quote with an inner ellipsis stands (a list item with its lead, 基金托管人应当履行下列职责：…（八）复核…; a
 * list from its first line to its last): from its first part to its last, each found after the one before, in text
 * compared without whitespace. Null when a part is missing or the quote has no inner ellipsis.
 */
export function ellipsisSpan(flat: string, parts: readonly string[]): [number, number] | null {
  if (parts.length < 2) return null;
  let from = 0;
  let start = -1;
  for (const part of parts) {
    const at = flat.indexOf(part, from);
    if (at < 0) return null;
    if (start < 0) start = at;
    from = at + part.length;
  }
  return [start, from];
}

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

/** Splits the text pieces overlapping `[from, to)` of the squeezed text so that part is wrapped in `<mark>`. */
function markRange(state: StateCore, pieces: TextPiece[], from: number, to: number): void {
  let first = true;
  for (const piece of pieces) {
    const end = piece.start + piece.positions.length;
    if (end <= from || piece.start >= to || piece.positions.length === 0) continue;
    const a = piece.positions[Math.max(from - piece.start, 0)] ?? 0;
    const b = (piece.positions[Math.min(to - piece.start, piece.positions.length) - 1] ?? a) + 1;
    const content = piece.child.content;
    const make = (type: string, text: string): Token => {
      const t = new state.Token(type, '', 0);
      t.content = text;
      return t;
    };
    const open = `<mark class="quote"${first ? ` id="${HIGHLIGHT_ID}"` : ''}>`;
    first = false;
    const replacement = [
      make(piece.child.type, content.slice(0, a)),
      make('html_inline', open),
      make(piece.child.type, content.slice(a, b)),
      make('html_inline', '</mark>'),
      make(piece.child.type, content.slice(b)),
    ].filter((t) => t.type === 'html_inline' || t.content !== '');
    piece.children.splice(piece.children.indexOf(piece.child), 1, ...replacement);
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
  const at =
    ellipsisSpan(
      flat,
      inner
        .split('…')
        .map(plain)
        .filter((part) => part !== ''),
    ) ?? findQuote(flat, plain(inner));
  if (at) markRange(state, pieces, at[0], at[1]);
  const html = sanitizeHtml(md.renderer.render(tokens, md.options, env), SANITIZE);
  return { html, marked: at !== null };
}
