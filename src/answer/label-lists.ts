/**
 * Lists a passage gives under labels, one list per label (**投资管理职责：** - 制定投资策略 … **投后管理职责：** - 参与公司治理
 * …; **机构投资者：** - 社保基金 … **个人投资者：** - 高净值个人 …): an item belongs to the class its label names. Study
 * notes write classes this way, and a question asks for one of them by name (下列属于基金管理人投后管理职责的是).
 */
import { type ClaimReading, holdsOwnWords, namesClaim } from './claim-reading.js';
import { exactForm } from './claim-forms.js';
import { LEAD_END, LIST_ITEM, unitsOf, withLeadBefore, type Unit } from './passage-units.js';
import type { Reading } from './reading-order.js';

/**
 * A label: a short name and nothing else (no verb, so not a sentence's lead such as 基金托管人应当履行下列职责：). Three
 * characters at least: two-character labels (定义：, 分类：) are the notes' generic headings, which name no class a
 * question asks for.
 */
const LABEL = /^\p{Script=Han}[\p{Script=Han}()（）]{2,15}$/u;

/** Words by which a lead states something rather than names a class. */
const STATING = /应当|可以|不得|必须|包括|如下|以下|下列/u;

/** The marks around a lead or an item: list markers, Markdown emphasis, the closing colon or semicolon. */
const MARKS = /^\s*(?:[-•·*]\s+|[（(][一二三四五六七八九十百\d]+[）)]|\d+[.、．])?[*_\s]*|[*_\s]*[：:；;。，,]?[*_\s]*$/gu;

/** Items longer than this state something of their own and are read as clauses are. */
const MAX_ITEM_CHARS = 20;

/** The class a lead names (`**投后管理职责：**` → 投后管理职责), or null when the lead is not a bare label. */
export function labelOf(lead: string): string | null {
  const label = exactForm(lead.replace(MARKS, ''));
  return LABEL.test(label) && !STATING.test(label) ? label : null;
}

/** How the reader ranks a label reading, and whether a passage under the stem's label speaks of the question. */
export interface LabelContext {
  coverage: number;
  /**
   * Whether the unit's passage, read with the label the stem names, speaks of the question: every section of a chapter
   * may list under the same labels (**基本要求：** under 5.2.1 守法合规 and under 5.2.4 客户至上), and only the section
   * the question is about says which items are its.
   */
  onQuestion: (label: string) => boolean;
}

/**
 * The reading of a list item under a label, where its passage lists under two or more labels and the stem names
 * exactly one of them, in a passage that speaks of the question: an item naming the claim under that label supports
 * it, under another label contradicts it (`类别不同：个人投资者`). Null otherwise, and for statements, which are read by
 * their words.
 */
export function labelReading(unit: Unit, c: ClaimReading, context: LabelContext): Reading | null {
  const lead = unit.lead ?? unit.listLead;
  if (lead === undefined || c.statement || !LEAD_END.test(lead)) return null;
  const label = labelOf(lead);
  if (label === null) return null;
  const written = unit.lead !== undefined ? (unit.item ?? '') : unit.text;
  // Items marked as a list's lines (- 社保基金, （一）…): a line that goes on after its colon (贝塔系数：1.20；) is a
  // name and its value, not a class and its members.
  if (!LIST_ITEM.test(written)) return null;
  const item = exactForm(written.replace(MARKS, ''));
  // The item names the claim as the name reading finds a name: by its written form or by its own words (管理费收入 in
  // 基金管理人、托管人的管理费、托管费收入, listed beside 托管费 under **应税项目：**).
  if (item === '' || [...item].length > MAX_ITEM_CHARS || !(namesClaim(item, c) || holdsOwnWords(written, c))) return null;
  const labels = labelsOf(unit);
  if (labels.size < 2) return null;
  const stem = exactForm(c.stem);
  const asked = [...labels].filter((l) => stem.includes(l));
  const stemLabel = asked[0];
  if (asked.length !== 1 || stemLabel === undefined || !context.onQuestion(stemLabel)) return null;
  const { coverage } = context;
  // Quoted after its label (`**投后管理职责：**…- 提供增值服务`), so the reader sees which class it is listed in.
  const quoted = unit.lead !== undefined ? unit : (withLeadBefore(unit, lead, true) ?? unit);
  if (stemLabel === label) return { verdict: 'supported', unit: quoted, coverage, marks: [c.text, label] };
  return { verdict: 'contradicted', unit: quoted, coverage, marks: [label], reason: `类别不同：${label}` };
}

const passageLabels = new WeakMap<Unit['chunk'], Set<string>>();

/** The distinct labels the unit's passage lists under. */
function labelsOf(unit: Unit): Set<string> {
  const known = passageLabels.get(unit.chunk);
  if (known) return known;
  const labels = new Set<string>();
  passageLabels.set(unit.chunk, labels);
  for (const u of unitsOf(unit.chunk, unit.rank)) {
    const lead = u.lead ?? u.listLead;
    const label = lead === undefined ? null : labelOf(lead);
    if (label !== null) labels.add(label);
  }
  return labels;
}
