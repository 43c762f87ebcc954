/**
 * Sections of one kind side by side (3.2.1 封闭式基金, 3.2.2 开放式基金, 3.2.3 交易型开放式指数基金（ETF）…): each speaks of
 * its own class, and the items of one (价格按基金份额净值) say nothing of another's (封闭式基金). Study notes are written
 * this way, a list under each heading with the heading as its subject.
 */
import type { Chunk } from '../types.js';
import { coverageOf, holds, namesClaim, othersNamed, STATED_SHARE, type ClaimReading } from './claim-reading.js';
import { exactForm } from './claim-forms.js';
import { superlativeUnstated } from './clause-cues.js';
import type { Unit } from './passage-units.js';
import type { Reading } from './reading-order.js';

/** The numbering before a heading's name: 3.2.1, 第三章：, 一、 */
const NUMBERING = /^\s*(?:第[一二三四五六七八九十百零\d]+[编章节条][：:]?|[\d.]+|[一二三四五六七八九十]+[、.．])\s*/u;

/**
 * A heading that names a class: its name, the alias it writes in brackets (交易型开放式指数基金（ETF）), and the head
 * of its name, the last character of a Chinese compound (金 of 封闭式基金). Null for a heading that names a topic
 * (风险的衡量指标, 基金收益率的计算: a phrase with 的) or too short a name.
 */
export function headingClass(heading: string): { names: string[]; head: string } | null {
  const name = exactForm(heading.replace(NUMBERING, ''));
  const bracket = /^(.+?)\((.+)\)$/u.exec(name);
  const base = bracket?.[1] ?? name;
  if (!/^\p{Script=Han}{2,}$/u.test(base) || base.includes('的')) return null;
  const names = (bracket ? [name, base, bracket[2] ?? ''] : [name]).filter((n) => [...n].length >= 2);
  return { names, head: [...base].at(-1) ?? '' };
}

/**
 * The passages (by chunk id) under a section whose sibling the stem names and which the stem does not name itself:
 * among the passages read, those whose innermost heading names a class with the same parent headings and the same head
 * as one the stem names by name. A stem naming none of a group's sections leaves the group alone.
 */
export function siblingSections(chunks: readonly Chunk[], stem: string): Set<string> {
  const form = exactForm(stem);
  const groups = new Map<string, { chunk: Chunk; named: boolean; head: string }[]>();
  for (const chunk of chunks) {
    const path = chunk.headings ?? [];
    const last = path.at(-1);
    if (path.length < 2 || last === undefined) continue;
    const kind = headingClass(last);
    if (!kind) continue;
    const parent = `${chunk.source}\u0000${path.slice(0, -1).join('\u0000')}`;
    const group = groups.get(parent) ?? [];
    group.push({ chunk, named: kind.names.some((n) => form.includes(n)), head: kind.head });
    groups.set(parent, group);
  }
  const out = new Set<string>();
  for (const group of groups.values()) {
    // Siblings of one kind share their head (封闭式基金, 开放式基金): a section of another kind beside them is not set apart.
    const heads = new Set(group.filter((g) => g.named).map((g) => g.head));
    for (const g of group) if (!g.named && heads.has(g.head)) out.add(g.chunk.chunk_id);
  }
  return out;
}

/**
 * The reading of a sentence under a section that names an option, where the sentence states the question and names
 * no option itself: its heading is its subject (3.4.2 伞形基金: - 多个子基金共用一个基金合同, for 多个子基金共用一个基金合同的
 * 基金是). The heading must be the option's name as a whole, and the sentence hold most of the question's words and
 * its most specific one. Null otherwise, and for statements, which are read by their own words.
 */
export function headingReading(unit: Unit, c: ClaimReading, coverage: number): Reading | null {
  if (c.statement || c.inStem) return null;
  const last = unit.chunk.headings?.at(-1);
  const kind = last === undefined ? null : headingClass(last);
  if (!kind) return null;
  const form = exactForm(unit.text);
  if (namesClaim(form, c) || othersNamed(form, c).length > 0) return null;
  if (coverageOf(unit.text, c.topic) < STATED_SHARE || !holds(unit.text, c.topic.key)) return null;
  if (superlativeUnstated(unit.text, c.stem)) return null;
  const name = kind.names[0] ?? '';
  const names = (aliases: readonly string[]): boolean => kind.names.some((n) => aliases.includes(n));
  if (names(c.aliases)) return { verdict: 'supported', unit, coverage, marks: [], reason: `所在小节：${name}` };
  if (c.placeTaken && c.others.some(names)) return { verdict: 'contradicted', unit, coverage, marks: [], reason: `主体不同：${name}` };
  return null;
}
