import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { COMPILED_CLI, tracedModules } from '../helpers/traced-modules.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');

function run(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  launcher = bin,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...nodeArgs, launcher, ...args], {
    encoding: 'utf8',
    env: offlineEnv(env),
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('cli', () => {
  it('--help lists every subcommand and loads no heavy module, bundled or not', () => {
    const tmp = makeTempRoot();
    try {
      // The launcher (the bundle, after a build) and the compiled modules, which the trace sees one by one.
      for (const launcher of [bin, COMPILED_CLI]) {
        const trace = path.join(tmp.root, 'imports.txt');
        writeFileSync(trace, '');
        const result = run(
          ['--help'],
          { TRACE_IMPORTS_FILE: trace },
          ['--import', path.join(repoRoot, 'test', 'fixtures', 'cli', 'trace-imports.mjs')],
          launcher,
        );
        assert.equal(result.status, 0, result.stderr);
        for (const command of ['ingest', 'search', 'toc', 'ask', 'eval', 'doctor'])
          assert.match(result.stdout, new RegExp(`\\b${command}\\b`));
        assert.match(result.stdout, /Exit codes/);
        const loaded = tracedModules(trace);
        if (launcher === COMPILED_CLI) assert.ok(loaded.includes('/dist/src/cli/program.js'), 'the trace hook saw the CLI load');
        // ora (and the chalk it brings) belongs to the reporters and loads only when a spinner is shown.
        for (const heavy of [
          'pdfjs-dist',
          'faiss-node',
          'onnxruntime',
          '@huggingface/transformers',
          'better-sqlite3',
          'openai',
          'chalk',
          'ora',
          '@gutenye',
          '@napi-rs/canvas',
        ]) {
          assert.ok(!loaded.includes(`/node_modules/${heavy}`), `--help through ${path.basename(launcher)} loaded ${heavy}`);
        }
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('each subcommand has its own help', () => {
    for (const command of ['ingest', 'search', 'toc', 'ask', 'eval', 'doctor']) {
      const result = run([command, '--help']);
      assert.equal(result.status, 0, `${command}: ${result.stderr}`);
      assert.match(result.stdout, new RegExp(`Usage: exam-copilot ${command}`));
    }
  });

  it('an unknown command is a usage error (exit 2)', () => {
    const result = run(['frobnicate']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /unknown command/);
  });

  it('doctor --json reports every check without colour or secrets', () => {
    const tmp = makeTempRoot();
    try {
      const secret = 'sk-test-very-secret-key-123456';
      const result = run(['--root', tmp.root, '--json', 'doctor'], {
        EXAM_COPILOT_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        EXAM_COPILOT_LLM_API_KEY: secret,
        EXAM_COPILOT_LLM_MODEL: 'test-model',
      });
      const report = JSON.parse(result.stdout) as { checks: { name: string; status: string; message: string }[]; ok: boolean };
      const names = report.checks.map((c) => c.name);
      assert.deepEqual(names, [
        'node',
        'sqlite-fts5',
        'faiss',
        'jieba',
        'kernels',
        'scan',
        'postings',
        'onnxruntime',
        'ocr',
        'index',
        'embedder',
        'llm',
      ]);
      const ocr = report.checks.find((c) => c.name === 'ocr');
      assert.match(`${ocr?.status} ${ocr?.message}`, /^ok OCR available|^warn OCR unavailable/);
      assert.equal(report.checks.find((c) => c.name === 'sqlite-fts5')?.status, 'ok');
      assert.equal(report.checks.find((c) => c.name === 'index')?.status, 'warn', 'an empty root has no index yet');
      const llm = report.checks.find((c) => c.name === 'llm');
      assert.equal(llm?.status, 'fail', 'port 9 on loopback is closed');
      assert.equal(report.ok, false);
      assert.equal(result.status, 1);
      assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), 'the API key leaked');
      assert.ok(!result.stdout.includes('\u001b['), 'colour codes in --json output');
    } finally {
      tmp.cleanup();
    }
  });

  it('a malformed config file is a one-line error naming the file', () => {
    const tmp = makeTempRoot();
    try {
      writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), '{"chunking": {"maxChars": "big"}}');
      const result = run(['--root', tmp.root, 'doctor']);
      assert.equal(result.status, 1);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? '', /exam-copilot\.config\.json: chunking\.maxChars/);
    } finally {
      tmp.cleanup();
    }
  });
});
