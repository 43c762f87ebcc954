import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './temp-root.js';

/** Whether the launcher runs the bundle: it is at least as new as the compiled code (bin/exam-copilot.js's rule). */
export function bundleFresh(): boolean {
  const mtime = (file: string): number => {
    try {
      return statSync(path.join(repoRoot, file)).mtimeMs;
    } catch {
      return -1;
    }
  };
  return mtime('dist/bundle/cli.cjs') >= mtime('dist/src/cli/main.js');
}

/**
 * The modules a trace of `test/fixtures/cli/trace-imports.mjs` saw loaded: the lines it wrote, and for each bundled
 * ES module among them (a worker's, and the chunks it imports) the compiled modules it holds (the bundle's metafile
 * lists them), as `/dist/src/…` paths: such a file runs every module it holds when it loads. The CLI's own bundle
 * (cli.cjs) runs its modules lazily and is compiled by the launcher, so no trace sees into it: a test of which modules
 * a command loads runs the compiled modules (`COMPILED_CLI`).
 */
export function tracedModules(traceFile: string): string {
  const trace = readFileSync(traceFile, 'utf8');
  const lines = trace.split('\n');
  if (!lines.some((l) => l.includes('/dist/bundle/'))) return trace;
  const meta = JSON.parse(readFileSync(path.join(repoRoot, 'dist', 'bundle', 'meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const held = lines.flatMap((line) => {
    const at = line.indexOf('/dist/bundle/');
    if (at < 0) return [];
    const output = meta.outputs[line.slice(at + 1)];
    return output ? Object.keys(output.inputs).map((input) => `/${input}`) : [];
  });
  return [...lines, ...held].join('\n');
}

/** A launcher of the CLI's compiled modules (dist/src/), whatever the bundle's state. */
export const COMPILED_CLI = path.join(repoRoot, 'test', 'fixtures', 'cli', 'run-compiled.mjs');
