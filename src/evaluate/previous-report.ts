import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../errors.js';
import type { GateReport } from './gate.js';

const previousSchema = z
  .object({
    dataset: z.string().optional(),
    modes: z.array(z.object({ mode: z.string(), accuracy: z.number().min(0).max(1) }).passthrough()),
  })
  .passthrough();

/** Reads a previous `--report-json` for `--compare`; an unreadable or foreign file is a one-line error before anything runs. */
export function loadPreviousReport(file: string): GateReport & { dataset?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(
      `${file}: cannot read the previous report for --compare (${code === 'ENOENT' ? 'no such file' : (error as Error).message}); pass a file written by --report-json`,
    );
  }
  const parsed = previousSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserError(
      `${file}: not an eval --report-json file (${issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : 'invalid'})`,
    );
  }
  return {
    modes: parsed.data.modes.map((m) => ({ mode: m.mode, accuracy: m.accuracy })),
    ...(parsed.data.dataset ? { dataset: parsed.data.dataset } : {}),
  };
}
