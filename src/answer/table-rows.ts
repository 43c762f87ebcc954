import type { Chunk } from '../types.js';
import { TABLE_RULE } from '../text/markdown-plain.js';
import { askingClause, exactForm } from './claim-forms.js';

/**
 * A comparison table read row by row, as notes write one: written out (`营运依据——契约型基金：基金合同；公司型基金：
 * 投资公司章程。`, the way a table is linearised in notes and table explanations) or as a Markdown pipe table whose
 * header names the columns (`| 比较项目 | 契约型基金 | 公司型基金 |` over `| 营运依据 | 基金合同 | 投资公司章程 |`). Each
 * cell speaks for its column (契约型基金), not for the row: an option found in the 契约型基金 cell says nothing of
 * 公司型基金. Generic to how a table is written as text.
 */

/** One cell: its column's label and its text as written (the label included). */
export interface TableCell {
  label: string;
  text: string;
}

/** A row written out: its own label (营运依据, before ——; empty when unwritten), its whole text and its cells. */
export interface TableRow {
  /** The table's title, written before its first row (表2-2 各类基金的资产配置与风险收益特征); empty when none was. */
  title: string;
  label: string;
  text: string;
  cells: readonly TableCell[];
  /** A pipe table's header line as written, and the passage's run from it to this row: quoted together, so a reader sees which column says what. */
  head?: { line: string; run: string };
}

/** A cell opens with its column's label and a colon (契约型基金：); a part without one goes on the cell before it. */
const CELL_LABEL = /^([^：:，,。；;、（）()\s]{2,12})[：:]/u;
const TWO_COLONS = /[：:][^]*[：:]/u;

const rowsByChunk = new WeakMap<Chunk, TableRow[]>();

/** A sentence read as a table row, or null when fewer than two columns label its cells. */
export function parseTableRow(sentence: string): TableRow | null {
  // Two labelled cells take two colons: most sentences have fewer, and are not split at all.
  if (!TWO_COLONS.test(sentence)) return null;
  const dash = sentence.indexOf('——');
  const body = dash >= 0 ? sentence.slice(dash + 2) : sentence;
  // The row's label is the text just before ——, after any title the first row carries (表1-1 …的比较：法律主体资格——).
  const head = dash >= 0 ? sentence.slice(0, dash).split(/[：:。]/u) : [];
  const label = (head.at(-1) ?? '').trim();
  const title = head.slice(0, -1).join('：').trim();
  const cells: TableCell[] = [];
  for (const part of body.split(/(?<=[；;])/u)) {
    const text = part.trim();
    if (text === '') continue;
    const m = CELL_LABEL.exec(text);
    const last = cells.at(-1);
    if (m?.[1]) cells.push({ label: m[1], text });
    else if (last) last.text += text;
    else return null;
  }
  return new Set(cells.map((cell) => cell.label)).size >= 2 ? { title, label, text: sentence, cells } : null;
}

/**
 * The cells of a Markdown pipe-table line (`| a | b |`), or null for a line that is not one. An escaped pipe (`\|`) is
 * part of its cell, as `markdownPlain` reads it.
 */
function pipeCells(line: string): string[] | null {
  const text = line.trim();
  if (!text.startsWith('|') || !text.endsWith('|') || text.length < 3) return null;
  return text
    .slice(1, -1)
    .split(/(?<!\\)\|/u)
    .map((cell) => cell.trim());
}

/** A pipe table's delimiter line (`|------|:---:|`), not a thematic break. */
function isDelimiter(line: string): boolean {
  return TABLE_RULE.test(line) && line.includes('|');
}

/**
 * The rows of the Markdown pipe tables in a text. A row's first cell is its label; every other cell is labelled by its
 * column's header and written as the written-out form writes a cell (契约型基金：基金合同), so both forms read alike. The
 * row's text is its line as the passage holds it; the header's first cell (比较项目, 基金类型) is the table's title.
 */
export function pipeTableRows(text: string): TableRow[] {
  const lines = text.split('\n');
  const rows: TableRow[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const header = pipeCells(lines[i] ?? '');
    if (!header || header.length < 2 || !isDelimiter(lines[i + 1] ?? '')) continue;
    let j = i + 2;
    for (; j < lines.length; j++) {
      const cells = pipeCells(lines[j] ?? '');
      if (!cells) break;
      const label = cells[0] ?? '';
      const row = header.slice(1).flatMap((column, k) => {
        const value = cells[k + 1] ?? '';
        return column !== '' && value !== '' ? [{ label: column, text: `${column}：${value}` }] : [];
      });
      if (label === '' || row.length === 0) continue;
      const head = {
        line: (lines[i] ?? '').trim(),
        run: lines
          .slice(i, j + 1)
          .join('\n')
          .trim(),
      };
      rows.push({ title: header[0] ?? '', label, text: (lines[j] ?? '').trim(), cells: row, head });
    }
    i = j - 1;
  }
  return rows;
}

/** The table rows of a passage: those written out, then its pipe tables'. */
export function tableRowsOf(chunk: Chunk): readonly TableRow[] {
  let rows = rowsByChunk.get(chunk);
  if (!rows) {
    const written = chunk.text
      .split(/(?<=[。\n])/u)
      .map((sentence) => sentence.trim())
      .flatMap((sentence) => parseTableRow(sentence) ?? []);
    // A table's title is written once, before its first row: the rows after it belong to the same table.
    written.forEach((row, i) => {
      if (row.title === '' && i > 0) row.title = written[i - 1]?.title ?? '';
    });
    rows = [...written, ...(chunk.text.includes('|') ? pipeTableRows(chunk.text) : [])];
    rowsByChunk.set(chunk, rows);
  }
  return rows;
}

/** The table row of a passage that holds `text` (one of its sentences or cells), or null. */
export function tableRowOf(chunk: Chunk, text: string): TableRow | null {
  return tableRowsOf(chunk).find((row) => row.text.includes(text)) ?? null;
}

/**
 * The column of a row that the question asks about: the one label its asking clause names (公司型基金 in
 * 根据契约型基金与公司型基金的比较，公司型基金的营运依据是（ ）, whose first clause names both). An asking clause that
 * names none (正确的是) asks of what the rest of the stem names: 下列关于开放式基金的说法，正确的是 asks of the column
 * 开放式基金, when the stem names that one alone. Null when neither names exactly one of the row's columns: then the
 * row is read as any sentence is.
 */
export function askedColumn(row: TableRow, stem: string): string | null {
  const labels = [...new Set(row.cells.map((cell) => cell.label))];
  const asking = askingClause(stem);
  const inClause = namedColumn(labels, exactForm(asking));
  if (inClause !== undefined || asking === stem) return inClause ?? null;
  return namedColumn(labels, exactForm(stem)) ?? null;
}

/** The one label a text names (null: several), or undefined when it names none. */
function namedColumn(labels: readonly string[], form: string): string | null | undefined {
  const named = labels.filter((label) => form.includes(exactForm(label)));
  if (named.length > 0) return named.length === 1 ? (named[0] ?? null) : null;
  // A stem may word a column's name its own way (常用的业绩比较基准 for 常用业绩比较基准示例): then the one label most of
  // whose character pairs the text holds.
  const close = labels.filter((label) => pairShare(exactForm(label), form) >= NAMED_PAIRS);
  return close.length === 1 ? (close[0] ?? null) : close.length > 1 ? null : undefined;
}

/**
 * Which row of the row's table the question asks about, by the row labels its asking clause names: `this` row, `another`
 * (股票基金的风险收益水平为 read in the row 混合基金 | 股票和债券 | 中高, which says nothing of the question, whatever its
 * cells hold), or null when it names none. Of labels named inside one another (基金, 股票基金), the longer is the one named.
 */
export function askedRow(row: TableRow, rows: readonly TableRow[], stem: string): 'this' | 'another' | null {
  if (row.label === '') return null;
  const table = tableOf(row, rows);
  // A label inside a cell the stem quotes (限价指令 of 达到止损价格时触发限价指令) is what that cell says, not a row named.
  const asking = exactForm(askingClause(stem));
  const form = cellsQuoted(table, asking).reduce((text, cell) => text.replace(exactForm(cell.value), ' '), asking);
  const named = [...new Set(table.map((other) => exactForm(other.label)))].filter((label) => label !== '' && form.includes(label));
  const longest = named.filter((label) => !named.some((other) => other !== label && other.includes(label)));
  if (longest.length === 0) return null;
  return longest.includes(exactForm(row.label)) ? 'this' : 'another';
}

/** The rows of the row's table: those with its title and header line. */
function tableOf(row: TableRow, rows: readonly TableRow[]): TableRow[] {
  return rows.filter((other) => other.title === row.title && other.head?.line === row.head?.line);
}

/** A cell shorter than this (高, 中低, 1.5%) says too little to be told apart as quoted by a stem. */
const QUOTED_CELL_CHARS = 4;

/** The cells of a table whose whole value a text, in its exact form, holds: each column and value once. */
function cellsQuoted(table: readonly TableRow[], form: string): { column: string; value: string }[] {
  const found = new Map<string, { column: string; value: string }>();
  for (const row of table) {
    for (const column of new Set(row.cells.map((cell) => cell.label))) {
      const value = columnValue(row, column);
      const exact = exactForm(value);
      if ([...exact].length >= QUOTED_CELL_CHARS && form.includes(exact)) found.set(`${column}\u0000${exact}`, { column, value });
    }
  }
  return [...found.values()];
}

/**
 * The one cell of the row's table that a stem naming none of its columns quotes whole: 达到止损价格时触发限价指令的交易指令是
 * quotes the 说明 of | 止损限价指令 | 达到止损价格时触发限价指令 |, and asks whose row it is. The question gives that column's
 * value, as 风险收益水平为“中低”的 gives one by naming the column. Null when it quotes none, or several.
 */
export function quotedCell(row: TableRow, rows: readonly TableRow[], stem: string): { column: string; value: string } | null {
  const quoted = cellsQuoted(tableOf(row, rows), exactForm(stem));
  return quoted.length === 1 ? (quoted[0] ?? null) : null;
}

/** Share of a label's character pairs that a stem holds, for a column named in other words. */
const NAMED_PAIRS = 0.6;

function pairShare(label: string, text: string): number {
  const chars = [...label];
  if (chars.length < 3) return 0;
  let held = 0;
  for (let i = 0; i + 1 < chars.length; i++) if (text.includes(`${chars[i]}${chars[i + 1]}`)) held++;
  return held / (chars.length - 1);
}

/** The text of a column's cells in a row (a column may hold several parts: 一般决议：调整…；延长…；). */
export function columnText(row: TableRow, label: string): string {
  return row.cells
    .filter((cell) => cell.label === label)
    .map((cell) => cell.text)
    .join('');
}

/** What a column's cells in a row say, without the label: 中低 in 风险收益水平：中低； */
export function columnValue(row: TableRow, label: string): string {
  return row.cells
    .filter((cell) => cell.label === label)
    .map((cell) => cell.text.slice(label.length + 1))
    .join('')
    .replace(/[；;。\s]+$/u, '');
}

/**
 * The value a stem gives a column (中低 in 风险收益水平为“中低”的基金类型是): the words right after the column's name and
 * 为 / 是 / a colon, up to a quote's end or 的; null when the stem gives none.
 */
export function stemValueOf(stem: string, label: string): string | null {
  const at = stem.indexOf(label);
  if (at < 0) return null;
  const m = /^(?:为|是|[：:])\s*[“"「『]?([^”"」』的，,。（(]+)/u.exec(stem.slice(at + label.length));
  return m?.[1]?.trim() || null;
}
