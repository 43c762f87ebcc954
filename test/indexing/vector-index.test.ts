import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NotReadyError, UserError } from '../../src/errors.js';
import { readHnswParams } from '../../src/indexing/faiss-format.js';
import type { FaissLoader } from '../../src/indexing/load-faiss.js';
import { createVectorIndex, faissStatus, openVectorIndex, readVectorIndex, type VectorIndex } from '../../src/indexing/vector-index.js';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.js';
import { seededRandom } from '../../src/seeded-random.js';

function randomUnitVectors(count: number, dimension: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const v = new Float32Array(dimension);
    let norm = 0;
    for (let j = 0; j < dimension; j += 1) {
      const x = next() * 2 - 1;
      v[j] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < dimension; j += 1) v[j] = (v[j] as number) / norm;
    return v;
  });
}

/** Independent oracle: score everything, full sort (score desc, id asc). */
function bruteForce(vectors: readonly Float32Array[], query: Float32Array, k: number): number[] {
  const scored = vectors.map((v, id) => {
    let s = 0;
    for (let j = 0; j < v.length; j += 1) s += (v[j] as number) * (query[j] as number);
    return { id, s };
  });
  scored.sort((a, b) => b.s - a.s || a.id - b.id);
  return scored.slice(0, k).map((x) => x.id);
}

const unavailable: FaissLoader = () => Promise.resolve({ available: false, reason: 'simulated: no binding', fix: 'install libfaiss-dev' });

const DIM = 64;
const vectors = randomUnitVectors(2000, DIM, 1);
const queries = randomUnitVectors(20, DIM, 2);
const K = 10;

let temp: TempRoot;
let faissSkip: string | false = false;
before(async () => {
  temp = makeTempRoot();
  const status = await faissStatus();
  if (!status.available) faissSkip = `faiss-node cannot load (${status.reason}); FAISS comparisons skipped — fix: ${status.fix}`;
});
after(() => temp.cleanup());

async function jsIndex(): Promise<VectorIndex> {
  const index = await createVectorIndex({ dimension: DIM, kind: 'flat', backend: 'js' });
  index.add(vectors);
  return index;
}

void describe('JS flat index', () => {
  void test('returns the exact top k (ties to the lower id) and matches a brute-force oracle', async () => {
    const index = await jsIndex();
    assert.equal(index.backend, 'js');
    assert.equal(index.size, 2000);
    for (const q of queries) {
      const got = index.search(q, K);
      assert.deepEqual(got.ids, bruteForce(vectors, q, K));
      for (let i = 1; i < got.scores.length; i += 1) assert.ok((got.scores[i - 1] as number) >= (got.scores[i] as number));
    }
    const ties = await createVectorIndex({ dimension: 2, kind: 'flat', backend: 'js' });
    const a = Float32Array.of(1, 0);
    const b = Float32Array.of(0, 1);
    ties.add([b, a, b, a, a]);
    assert.deepEqual(ties.search(a, 3), { ids: [1, 3, 4], scores: [1, 1, 1] });
    assert.deepEqual(ties.search(a, 2).ids, [1, 3], 'more ties than k: the lowest ids win');
    assert.deepEqual(ties.search(a, 50).ids, [1, 3, 4, 0, 2], 'k above size returns every row');
  });

  void test('writes FAISS IndexFlatIP bytes and reads them back with identical results', async () => {
    const index = await createVectorIndex({ dimension: 3, kind: 'flat', backend: 'js' });
    index.add([Float32Array.of(1, 2, 3), Float32Array.of(4, 5, 6)]);
    const file = path.join(temp.root, 'tiny', 'index.faiss');
    index.write(file);
    // Golden bytes, as faiss::write_index(IndexFlatIP) writes them (checked against faiss 1.7.3).
    const golden =
      '49784649' +
      '03000000' +
      '0200000000000000' +
      '0000100000000000' +
      '0000100000000000' +
      '01' +
      '00000000' +
      '0600000000000000' +
      '0000803f' +
      '00000040' +
      '00004040' +
      '00008040' +
      '0000a040' +
      '0000c040';
    assert.equal(readFileSync(file).toString('hex'), golden);

    const big = await jsIndex();
    const bigFile = path.join(temp.root, 'js-roundtrip.faiss');
    big.write(bigFile);
    const back = await readVectorIndex(bigFile, { backend: 'js' });
    assert.equal(back.size, 2000);
    assert.equal(back.dimension, DIM);
    for (const q of queries) assert.deepEqual(back.search(q, K), big.search(q, K));
    back.add(randomUnitVectors(1, DIM, 9));
    assert.equal(back.size, 2001, 'a read index accepts more vectors');
  });

  void test('rejects mismatched dimensions, bad files and missing files with one-line errors', async () => {
    const index = await jsIndex();
    assert.throws(
      () => index.search(new Float32Array(32), 5),
      (e: unknown) => e instanceof UserError && /32 dimensions but the index has 64/.test(e.message),
    );
    assert.throws(() => index.add([new Float32Array(65)]), UserError);
    const file = path.join(temp.root, 'truncated.faiss');
    index.write(file);
    writeFileSync(file, readFileSync(file).subarray(0, 1000));
    await assert.rejects(
      readVectorIndex(file, { backend: 'js' }),
      (e: unknown) => e instanceof UserError && e.message.startsWith(`${file}: unreadable FAISS index`) && !e.message.includes('\n'),
    );
    await assert.rejects(readVectorIndex(file, { backend: 'auto' }), UserError);
    const other = path.join(temp.root, 'other.faiss');
    writeFileSync(other, Buffer.from('IxF2 not ours'));
    await assert.rejects(readVectorIndex(other, { backend: 'js' }), /unsupported FAISS index type "IxF2"/);
    await assert.rejects(readVectorIndex(path.join(temp.root, 'none.faiss'), { backend: 'js' }), NotReadyError);
  });
});

void describe('backend selection', () => {
  void test('hnsw with backend js is a UserError; auto+hnsw without FAISS falls back to flat with a warning', async () => {
    await assert.rejects(
      createVectorIndex({ dimension: 8, kind: 'hnsw', backend: 'js' }),
      (e: unknown) => e instanceof UserError && /HNSW vector indexes need FAISS/.test(e.message),
    );
    const fallback = await createVectorIndex({ dimension: 8, kind: 'hnsw', backend: 'auto', loader: unavailable });
    assert.equal(fallback.backend, 'js');
    assert.equal(fallback.kind, 'flat');
    assert.equal(fallback.warnings.length, 1);
    assert.match(fallback.warnings[0]?.message ?? '', /HNSW needs FAISS \(simulated: no binding\)/);
    await assert.rejects(
      createVectorIndex({ dimension: 8, kind: 'flat', backend: 'faiss', loader: unavailable }),
      /FAISS backend requested but simulated: no binding/,
    );
    const flat = await createVectorIndex({ dimension: 8, kind: 'flat', backend: 'auto', loader: unavailable });
    assert.equal(flat.backend, 'js');
    assert.deepEqual(flat.warnings, []);
  });
});

void describe('FAISS backend', () => {
  void test('JS flat search returns exactly FAISS IndexFlatIP ids, scores within 1e-5', async (t) => {
    if (faissSkip) return t.skip(faissSkip);
    const faiss = await createVectorIndex({ dimension: DIM, kind: 'flat', backend: 'faiss' });
    assert.equal(faiss.backend, 'faiss');
    faiss.add(vectors);
    const js = await jsIndex();
    for (const q of queries) {
      const a = faiss.search(q, K);
      const b = js.search(q, K);
      assert.deepEqual(b.ids, a.ids);
      b.scores.forEach((s, i) => assert.ok(Math.abs(s - (a.scores[i] as number)) < 1e-5, `score ${s} vs ${a.scores[i]}`));
    }
  });

  void test('searchMany gives each query the ids search gives it, scores within 1e-5, flat and HNSW', async (t) => {
    if (faissSkip) return t.skip(faissSkip);
    for (const kind of ['flat', 'hnsw'] as const) {
      const faiss = await createVectorIndex({ dimension: DIM, kind, backend: 'faiss' });
      faiss.add(vectors);
      // Five queries (padded to FAISS's matrix-product path), one, and more than the padding.
      for (const batch of [queries.slice(0, 5), queries.slice(0, 1), [...queries, ...queries.slice(0, 3)]]) {
        const many = faiss.searchMany?.(batch, K);
        assert.ok(many, 'FAISS indexes search in batches');
        assert.equal(many.length, batch.length);
        batch.forEach((q, i) => {
          const one = faiss.search(q, K);
          assert.deepEqual(many[i]!.ids, one.ids, `${kind} query ${i} of ${batch.length}`);
          many[i]!.scores.forEach((s, j) => assert.ok(Math.abs(s - one.scores[j]!) < 1e-5, `score ${s} vs ${one.scores[j]}`));
        });
      }
      assert.deepEqual(faiss.searchMany?.([], K), []);
    }
  });

  void test('files cross between backends: identical bytes and identical results', async (t) => {
    if (faissSkip) return t.skip(faissSkip);
    const faiss = await createVectorIndex({ dimension: DIM, kind: 'flat', backend: 'faiss' });
    faiss.add(vectors);
    // A search moves the vectors into FAISS, so FAISS's own writer writes the file.
    faiss.search(queries[0]!, K);
    const js = await jsIndex();
    const faissFile = path.join(temp.root, 'by-faiss.faiss');
    const jsFile = path.join(temp.root, 'by-js.faiss');
    faiss.write(faissFile);
    js.write(jsFile);
    assert.ok(readFileSync(faissFile).equals(readFileSync(jsFile)), 'JS writes the same bytes as faiss::write_index');
    const jsReadsFaiss = await readVectorIndex(faissFile, { backend: 'js' });
    const faissReadsJs = await readVectorIndex(jsFile, { backend: 'faiss' });
    assert.equal(faissReadsJs.backend, 'faiss');
    assert.equal(faissReadsJs.kind, 'flat');
    for (const q of queries) {
      const expected = faiss.search(q, K).ids;
      assert.deepEqual(jsReadsFaiss.search(q, K).ids, expected);
      assert.deepEqual(faissReadsJs.search(q, K).ids, expected);
    }
  });

  void test('a flat FAISS index holds added vectors until its first search: written, added to and searched in order', async (t) => {
    if (faissSkip) return t.skip(faissSkip);
    const half = vectors.length / 2;
    const written = await createVectorIndex({ dimension: DIM, kind: 'flat', backend: 'faiss' });
    written.add(vectors.slice(0, half));
    written.add(vectors.slice(half));
    assert.equal(written.size, vectors.length);
    const file = path.join(temp.root, 'never-searched.faiss');
    written.write(file);
    const jsFile = path.join(temp.root, 'js-reference.faiss');
    (await jsIndex()).write(jsFile);
    assert.ok(readFileSync(file).equals(readFileSync(jsFile)), 'the same bytes as the JS writer (and so as FAISS)');
    // Read back with half the vectors in FAISS, then the rest added: the ids follow the order of adding.
    const firstHalf = await createVectorIndex({ dimension: DIM, kind: 'flat', backend: 'faiss' });
    firstHalf.add(vectors.slice(0, half));
    const halfFile = path.join(temp.root, 'half.faiss');
    firstHalf.write(halfFile);
    const grown = await readVectorIndex(halfFile, { backend: 'faiss' });
    grown.add(vectors.slice(half));
    assert.equal(grown.size, vectors.length);
    for (const q of queries) assert.deepEqual(grown.search(q, K).ids, bruteForce(vectors, q, K));
    const many = grown.searchMany?.(queries.slice(0, 3), K);
    assert.deepEqual(
      many?.map((r) => r.ids),
      queries.slice(0, 3).map((q) => bruteForce(vectors, q, K)),
    );
    const grownFile = path.join(temp.root, 'grown.faiss');
    grown.write(grownFile);
    assert.ok(readFileSync(grownFile).equals(readFileSync(jsFile)), 'FAISS writes every vector, in order');
  });

  void test('HNSW finds the true neighbours (recall@10 >= 0.9) and keeps efSearch through write/read', async (t) => {
    if (faissSkip) return t.skip(faissSkip);
    const hnsw = await createVectorIndex({ dimension: DIM, kind: 'hnsw', backend: 'auto', hnswM: 16 });
    assert.equal(hnsw.kind, 'hnsw');
    hnsw.add(vectors);
    let found = 0;
    for (const q of queries) {
      const truth = new Set(bruteForce(vectors, q, K));
      found += hnsw.search(q, K).ids.filter((id) => truth.has(id)).length;
    }
    const recall = found / (queries.length * K);
    assert.ok(recall >= 0.9, `recall@10 ${recall}`);

    const file = path.join(temp.root, 'hnsw.faiss');
    hnsw.write(file);
    assert.deepEqual(readHnswParams(readFileSync(file), file), { efConstruction: 40, efSearch: 128 });
    const viaFaiss = await readVectorIndex(file, { backend: 'auto' });
    assert.equal(viaFaiss.kind, 'hnsw');
    assert.equal(viaFaiss.size, 2000);
    for (const q of queries) assert.deepEqual(viaFaiss.search(q, K).ids, hnsw.search(q, K).ids);
    // Without FAISS the stored vectors are searched exactly, with a warning.
    const viaJs = await readVectorIndex(file, { backend: 'auto', loader: unavailable });
    assert.equal(viaJs.backend, 'js');
    assert.equal(viaJs.warnings.length, 1);
    for (const q of queries) assert.deepEqual(viaJs.search(q, K).ids, bruteForce(vectors, q, K));
  });
});

void describe('an index opened for reading at its first use (openVectorIndex)', () => {
  for (const backend of ['js', 'faiss'] as const) {
    void test(`${backend}: knows its shape at open, searches the file it opened even after an ingest replaced it`, async (t) => {
      if (backend === 'faiss' && faissSkip) return t.skip(faissSkip);
      const file = path.join(temp.root, `deferred-${backend}.faiss`);
      (await jsIndex()).write(file);
      const opened = await openVectorIndex(file, { backend });
      assert.equal(opened.backend, backend);
      assert.equal(opened.kind, 'flat');
      assert.equal(opened.size, vectors.length);
      assert.equal(opened.dimension, DIM);
      // An ingest swaps a new index into place and deletes the old folder before the first search.
      const replacement = await createVectorIndex({ dimension: DIM, kind: 'flat', backend: 'js' });
      replacement.add(randomUnitVectors(50, DIM, 9));
      const staged = path.join(temp.root, `staged-${backend}.faiss`);
      replacement.write(staged);
      renameSync(staged, file);
      for (const q of queries) assert.deepEqual(opened.search(q, K).ids, bruteForce(vectors, q, K));
      assert.deepEqual(
        opened.searchMany?.(queries.slice(0, 3), K).map((r) => r.ids),
        queries.slice(0, 3).map((q) => bruteForce(vectors, q, K)),
      );
      opened.close();
    });
  }

  void test('a corrupt file fails at open, not at the first search', async () => {
    const file = path.join(temp.root, 'deferred-truncated.faiss');
    (await jsIndex()).write(file);
    writeFileSync(file, readFileSync(file).subarray(0, 1000));
    await assert.rejects(openVectorIndex(file, { backend: 'js' }), (e: Error) => e instanceof NotReadyError && e.message.includes(file));
  });
});
