import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import { applyFaissThreadDefaults, loadFaiss } from '../../src/indexing/load-faiss.js';
import { makeTempRoot } from '../helpers/temp-root.js';

describe('loading FAISS keeps no hidden state', () => {
  it('never writes the process environment; the entry applies the thread defaults it is given', async () => {
    const saved = { omp: process.env.OMP_WAIT_POLICY, blas: process.env.OPENBLAS_NUM_THREADS };
    delete process.env.OMP_WAIT_POLICY;
    delete process.env.OPENBLAS_NUM_THREADS;
    try {
      const first = await loadFaiss();
      const second = await loadFaiss();
      assert.equal(first.available, second.available);
      assert.equal(process.env.OMP_WAIT_POLICY, undefined);
      assert.equal(process.env.OPENBLAS_NUM_THREADS, undefined);
    } finally {
      if (saved.omp !== undefined) process.env.OMP_WAIT_POLICY = saved.omp;
      if (saved.blas !== undefined) process.env.OPENBLAS_NUM_THREADS = saved.blas;
    }
    const env: NodeJS.ProcessEnv = { OPENBLAS_NUM_THREADS: '4' };
    applyFaissThreadDefaults(env);
    assert.deepEqual(env, { OPENBLAS_NUM_THREADS: '4', OMP_WAIT_POLICY: 'PASSIVE' });
  });

  it('EXAM_COPILOT_DISABLE_FAISS=1 is read with the rest of the configuration and forces the JS backend', () => {
    const tmp = makeTempRoot();
    try {
      assert.equal(
        loadConfig({ root: tmp.root, env: { EXAM_COPILOT_DISABLE_FAISS: '1', EXAM_COPILOT_VECTOR_BACKEND: 'faiss' } }).config.vector
          .backend,
        'js',
      );
      assert.equal(loadConfig({ root: tmp.root, env: {} }).config.vector.backend, 'auto');
    } finally {
      tmp.cleanup();
    }
  });
});
