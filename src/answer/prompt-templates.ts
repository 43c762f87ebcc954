import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';

/** A prompt file split into its system and user parts. */
export interface PromptTemplate {
  system: string;
  user: string;
}

/** The prompts the answerers use, read once from the `prompts/` folder. */
export interface PromptSet {
  answer: PromptTemplate;
  baseline: PromptTemplate;
  rerank: PromptTemplate;
  repair: PromptTemplate;
}

const USER_MARKER = /^<!--\s*user\s*-->\s*$/m;
const COMMENT = /^<!--[\s\S]*?-->\s*\n?/;

/** Parses a prompt file: an optional leading `<!-- … -->` comment, the system part, `<!-- user -->`, the user part. */
export function parsePromptTemplate(text: string): PromptTemplate {
  const body = text.replace(COMMENT, '');
  const parts = body.split(USER_MARKER);
  if (parts.length === 1) return { system: '', user: body.trim() };
  return { system: (parts[0] ?? '').trim(), user: parts.slice(1).join('\n').trim() };
}

/** Reads one prompt file `<name>.md` of a prompts folder; a missing or unreadable one is a one-line error. */
export function readPrompt(dir: string, name: string): PromptTemplate {
  const file = path.join(dir, `${name}.md`);
  try {
    return parsePromptTemplate(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserError(`${file}: cannot read the prompt (${(error as Error).message}); reinstall exam-copilot or restore prompts/`);
  }
}

/** Reads `answer.md`, `baseline.md`, `rerank.md` and `repair.md` from a prompts folder. */
export function loadPrompts(dir: string): PromptSet {
  const read = (name: string): PromptTemplate => readPrompt(dir, name);
  return { answer: read('answer'), baseline: read('baseline'), rerank: read('rerank'), repair: read('repair') };
}

/**
 * Fills `{{name}}` placeholders in one pass, so text substituted in (evidence that itself contains
 * `{{…}}`) is never expanded again.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? (values[name] ?? '') : whole));
}

/**
 * The tag that fences data in a prompt: `evidence-` plus a hash of the data itself. Text cannot contain a
 * hash of itself, so a planted `</evidence>` (or any guess at the tag) stays inside the fence; being derived
 * from the content, the tag is the same on every run and the response cache still matches.
 */
export function evidenceFence(data: string, name = 'evidence'): string {
  let tag = `${name}-${createHash('sha256').update(data).digest('hex').slice(0, 12)}`;
  // Belt and braces for the astronomically unlikely case that the data holds its own tag.
  for (let salt = 0; data.includes(tag); salt++)
    tag = `${name}-${createHash('sha256').update(`${salt}:${data}`).digest('hex').slice(0, 12)}`;
  return tag;
}
