/**
 * Chinese textbook and statute heading conventions: numbering kinds, their default levels, and the key
 * used to compare a heading with a table-of-contents title.
 */

/**
 * How a heading is numbered: `part` 第X编/篇/部分, `subpart` 第X分编, `chapter` 第X章, `section` 第X节, `cn-item` 一、,
 * `cn-paren` （一）, `dec2` 1.1, `dec3` 1.1.1. `article` (第X条) is a paragraph of a law, never a heading.
 */
export type NumberingKind = 'part' | 'subpart' | 'chapter' | 'section' | 'cn-item' | 'cn-paren' | 'dec2' | 'dec3' | 'article';

/** Numbering kinds that can head a segment. */
export type HeadingKind = Exclude<NumberingKind, 'article'>;

const CN_NUM = '[一二三四五六七八九十百千零〇两\\d]+';

const PATTERNS: readonly [NumberingKind, RegExp][] = [
  ['article', new RegExp(`^第${CN_NUM}条`, 'u')],
  ['part', new RegExp(`^第${CN_NUM}[编篇部](?:分)?(?:\\s|[^\\s，。；]|$)`, 'u')],
  ['subpart', new RegExp(`^第${CN_NUM}分[编篇](?:\\s|[^\\s，。；]|$)`, 'u')],
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

/**
 * Levels when no table of contents says otherwise. Only their order matters (a heading closes every open heading
 * at its level or deeper): 编 > 分编 > 章 > 节 > 一、 > （一）.
 */
export const DEFAULT_KIND_LEVELS: Readonly<Record<HeadingKind, number>> = {
  part: 1,
  subpart: 2,
  chapter: 3,
  section: 4,
  'cn-item': 5,
  'cn-paren': 6,
  dec2: 4,
  dec3: 5,
};

/** Coarse-to-fine order used to place kinds the outline does not show below the ones it does. */
const KIND_ORDER: readonly HeadingKind[] = ['part', 'subpart', 'chapter', 'section', 'cn-item', 'cn-paren'];

/**
 * Levels for each numbering kind as the outline uses them: the most common level of the outline entries of that
 * kind, and for kinds absent from the outline one level below the nearest coarser kind, so that an outline of
 * 编 and 章 puts a body's 节 below its 章. In a book whose chapters are whole laws, the laws' own 第X章 come out at
 * level 2 and their 第X节 at level 3. Kinds coarser than every outline kind keep their order above them.
 */
export function kindLevelsFromOutline(entries: readonly { title: string; level: number }[]): Record<HeadingKind, number> {
  const levels: Record<HeadingKind, number> = { ...DEFAULT_KIND_LEVELS };
  const votes = new Map<HeadingKind, Map<number, number>>();
  for (const e of entries) {
    const kind = numberingKind(e.title);
    if (!kind || kind === 'article') continue;
    let v = votes.get(kind);
    if (!v) votes.set(kind, (v = new Map<number, number>()));
    v.set(e.level, (v.get(e.level) ?? 0) + 1);
  }
  if (votes.size === 0) return levels;
  const known = new Map<HeadingKind, number>();
  for (const [kind, v] of votes) {
    let best = 0;
    let bestCount = -1;
    for (const [level, count] of v) if (count > bestCount || (count === bestCount && level > best)) [best, bestCount] = [level, count];
    known.set(kind, best);
  }
  const firstKnown = KIND_ORDER.findIndex((k) => known.has(k));
  if (firstKnown >= 0) {
    const base = known.get(KIND_ORDER[firstKnown] ?? 'chapter') ?? 1;
    let last = base;
    KIND_ORDER.forEach((kind, i) => {
      // Kinds coarser than anything the outline shows sit above its first level, in their own order.
      if (i < firstKnown) levels[kind] = base - (firstKnown - i);
      else if (i === firstKnown) levels[kind] = base;
      // Never at or above a coarser kind: 分编 and 章 listed at one indent still nest (编 > 分编 > 章).
      else levels[kind] = last = Math.max(known.get(kind) ?? 0, last + 1);
    });
  }
  if (known.has('dec2')) levels.dec2 = known.get('dec2') ?? levels.dec2;
  if (known.has('dec3')) levels.dec3 = known.get('dec3') ?? levels.dec3;
  else if (known.has('dec2')) levels.dec3 = levels.dec2 + 1;
  return levels;
}

/** One open heading of a heading path. */
export interface OpenHeading {
  title: string;
  level: number;
}

/**
 * The heading path after a heading at `level`: every open heading at that level or deeper is closed first.
 * Levels only need to be ordered, so a 章 directly under a 编 (no 分编) nests correctly.
 */
export function pushHeading(path: readonly OpenHeading[], heading: OpenHeading): OpenHeading[] {
  const kept = path.filter((h) => h.level < heading.level);
  return [...kept, heading];
}

/**
 * The compatibility fields of a heading path: the outermost heading is the chapter, the next the section, and the
 * innermost deeper one the subsection (`["第五编 婚姻家庭编", "第二章 结婚"]` gives chapter 第五编…, section 第二章…).
 */
export function legacyHeadingFields(headings: readonly string[]): { chapter: string; section: string; subsection: string } {
  return {
    chapter: headings[0] ?? '',
    section: headings[1] ?? '',
    subsection: headings.length > 2 ? (headings[headings.length - 1] ?? '') : '',
  };
}

/** Comparison key for headings and TOC titles: width-folded, no whitespace (`第一章 总 则` = `第一章总则`). */
export function titleKey(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\s\u3000]+/gu, '')
    .toLowerCase();
}
