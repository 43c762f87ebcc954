import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NotReadyError } from '../../src/errors.js';
import { FlatVectorIndex } from '../../src/indexing/flat-vector-index.js';
import { projectPaths } from '../../src/paths.js';
import { repoRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const QUESTION = '基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';

/** The CLI with no LLM from the developer's environment. */
function run(root: string, args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [bin, '--root', root, ...args], {
    encoding: 'utf8',
    env: offlineEnv({ EXAM_COPILOT_VECTOR_BACKEND: 'js' }),
    timeout: 120_000,
  });
  return { status: r.status, stderr: r.stderr };
}

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
}

describe('not-ready conditions exit 5, whichever command meets them', () => {
  let fx: FixtureIndex;
  before(async () => {
    fx = await buildFixtureIndex();
    writeFileSync(
      path.join(fx.root, 'set.csv'),
      `id,question,A,B,C,D,answer\n1,${QUESTION.replace(/A\..*/, '')},基金托管人,基金管理人,基金销售机构,基金份额登记机构,A\n`,
    );
  });
  after(() => fx.cleanup());

  it('"needs an LLM" is 5 from ask and from eval', () => {
    for (const args of [
      ['ask', '--answerer', 'llm', QUESTION],
      ['ask', '--mode', 'baseline', QUESTION],
      ['eval', path.join(fx.root, 'set.csv'), '--answerer', 'llm'],
    ]) {
      const r = run(fx.root, args);
      assert.equal(r.status, 5, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /needs an LLM endpoint/);
      oneLine(r.stderr);
    }
  });

  it('a corrupt vector index is 5, like a bad meta.json', () => {
    const faiss = path.join(projectPaths(fx.root).faissDir, 'index.faiss');
    const meta = path.join(projectPaths(fx.root).faissDir, 'meta.json');
    const [goodIndex, goodMeta] = [readFileSync(faiss), readFileSync(meta)];
    try {
      writeFileSync(faiss, goodIndex.subarray(0, 40));
      const truncated = run(fx.root, ['search', '基金托管人', '--mode', 'vector']);
      assert.equal(truncated.status, 5, truncated.stderr);
      assert.match(truncated.stderr, /index\.faiss.*ingest/);
      oneLine(truncated.stderr);
      writeFileSync(faiss, Buffer.concat([Buffer.from('IxZZ'), goodIndex.subarray(4)]));
      assert.equal(run(fx.root, ['search', '基金托管人', '--mode', 'vector']).status, 5);
      writeFileSync(faiss, goodIndex);
      writeFileSync(meta, '{ not json');
      assert.equal(run(fx.root, ['search', '基金托管人', '--mode', 'vector']).status, 5);
    } finally {
      writeFileSync(faiss, goodIndex);
      writeFileSync(meta, goodMeta);
    }
    assert.equal(run(fx.root, ['search', '基金托管人', '--mode', 'vector']).status, 0);
  });

  it('a query vector of another dimension than the index is a not-ready error', () => {
    const index = new FlatVectorIndex(4);
    index.add([new Float32Array([1, 0, 0, 0])]);
    assert.throws(
      () => index.search(new Float32Array(3), 1),
      (error: unknown) => error instanceof NotReadyError && /ingest/.test(error.message),
    );
  });
});
