/**
 * Chinese textbook and statute heading conventions: numbering kinds, their default levels, and the key
 * used to compare a heading with a table-of-contents title.
 */

/** How a heading is numbered. `article` (第X条) is a paragraph of a law, never a heading. */
export type NumberingKind = 'part' | 'chapter' | 'section' | 'cn-item' | 'cn-paren' | 'dec2' | 'dec3' | 'article';

const CN_NUM = '[一二三四五六七八九十百千零〇两\\d]+';

const PATTERNS: readonly [NumberingKind, RegExp][] = [
  ['article', new RegExp(`^第${CN_NUM}条`, 'u')],
  ['part', new RegExp(`^第${CN_NUM}[编篇部](?:分)?(?:\\s|[^\\s，。；]|$)`, 'u')],
  ['chapter', new RegExp(`^第${CN_NUM}章`, 'u')],
  ['section', new RegExp(`^第${CN_NUM}节`, 'u')],
  ['cn-item', /^[一二三四五六七八九十]+、/u],
  ['cn-paren', /^[（(][一二三四五六七八九十]+[）)]/u],
  ['dec3', /^\d{1,2}\.\d{1,2}\.\d{1,2}(?![.\d])\s*[^\s\d%]/u],
  ['dec2', /^\d{1,2}\.\d{1,2}(?![.\d%])\s*[^\s\d%．.]/u],
];

/** The numbering kind of a line, or null. */
export function numberingKind(text: string): NumberingKind | null {
  const t = text.normalize('NFKC').trim();
  for (const [kind, re] of PATTERNS) if (re.test(t)) return kind;
  return null;
}

/** Levels when no table of contents says otherwise: 章 = chapter, 节 = section, 一、 = subsection. */
export const DEFAULT_KIND_LEVELS: Readonly<Record<Exclude<NumberingKind, 'article'>, number>> = {
  part: 1,
  chapter: 1,
  section: 2,
  'cn-item': 3,
  'cn-paren': 4,
  dec2: 2,
  dec3: 3,
};

/** Coarse-to-fine order used to place kinds the TOC does not show below the ones it does. */
const KIND_ORDER: readonly Exclude<NumberingKind, 'article'>[] = ['part', 'chapter', 'section', 'cn-item', 'cn-paren'];

/**
 * Levels for each numbering kind as the outline uses them: the most common level of the entries of that kind,
 * and for kinds absent from the outline one level below the nearest coarser kind. In a book whose chapters are
 * whole laws, the laws' own 第X章 come out at level 2 and their 第X节 at level 3.
 */
export function kindLevelsFromOutline(entries: readonly { title: string; level: number }[]): Record<Exclude<NumberingKind, 'article'>, number> {
  const levels: Record<Exclude<NumberingKind, 'article'>, number> = { ...DEFAULT_KIND_LEVELS };
  if (entries.length === 0) return levels;
  const votes = new Map<NumberingKind, Map<number, number>>();
  for (const e of entries) {
    const kind = numberingKind(e.title);
    if (!kind || kind === 'article') continue;
    let v = votes.get(kind);
    if (!v) votes.set(kind, (v = new Map<number, number>()));
    v.set(e.level, (v.get(e.level) ?? 0) + 1);
  }
  const known = new Map<NumberingKind, number>();
  for (const [kind, v] of votes) {
    let best = 0;
    let bestCount = -1;
    for (const [level, count] of v) if (count > bestCount || (count === bestCount && level > best)) [best, bestCount] = [level, count];
    known.set(kind, best);
  }
  let last = 0;
  for (const kind of KIND_ORDER) {
    const k = known.get(kind);
    if (k !== undefined) last = k;
    else if (last > 0) last += 1;
    levels[kind] = k ?? (last > 0 ? last : DEFAULT_KIND_LEVELS[kind]);
  }
  if (known.has('dec2')) levels.dec2 = known.get('dec2') ?? levels.dec2;
  if (known.has('dec3')) levels.dec3 = known.get('dec3') ?? levels.dec3;
  else if (known.has('dec2')) levels.dec3 = levels.dec2 + 1;
  return levels;
}

/** Comparison key for headings and TOC titles: width-folded, no whitespace (`第一章 总 则` = `第一章总则`). */
export function titleKey(text: string): string {
  return text.normalize('NFKC').replace(/[\s\u3000]+/gu, '').toLowerCase();
}
