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

/**
 * Reads a previous `--report-json` for `--compare`; an unreadable or foreign file is a one-line error before anything
 * runs. A file that does not exist is `null` with `missingOk` (the first run of a CI job has nothing to compare with yet).
 */
export function loadPreviousReport(file: string, options: { missingOk: true }): (GateReport & { dataset?: string }) | null;
export function loadPreviousReport(file: string, options?: { missingOk?: false }): GateReport & { dataset?: string };
export function loadPreviousReport(file: string, options: { missingOk?: boolean } = {}): (GateReport & { dataset?: string }) | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.missingOk) return null;
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
