import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FlatVectorIndex } from '../../src/indexing/flat-vector-index.js';
import { checkFlatIP, encodeScalarQuantizer8, fileSource } from '../../src/indexing/faiss-format.js';
import {
  checkCodesFile,
  readQuantizedVectorIndex,
  rescoreDepth,
  streamQuantizedVectorIndex,
} from '../../src/indexing/quantized-vector-index.js';
import { encodeScalarQuantizer8Codes, trainScalarQuantizer8, writeQuantizedCodes } from '../../src/indexing/scalar-quantizer.js';
import { SCAN_QUERIES } from '../../src/indexing/scan-kernels.js';
import { faissStatus, openVectorIndex, readVectorIndex } from '../../src/indexing/vector-index.js';
import { VECTOR_FILES } from '../../src/indexing/vector-meta.js';
import { projectPaths } from '../../src/paths.js';
import { openRetriever } from '../../src/retrieve/open-retriever.js';
import { seededRandom } from '../../src/seeded-random.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { buildFixtureIndex } from '../retrieve/fixture-index.js';

/** `count` random unit vectors of `d` dimensions, with one dimension constant (FAISS leaves its range at zero). */
function unitVectors(count: number, d: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: d }, (_, j) => (j === 3 ? 0.125 : random() - 0.5));
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

/** A flat index and its codes written to a temp folder, as ingest writes them. */
function writeIndex(dir: string, vectors: Float32Array[], d: number): { flat: string; codes: string } {
  const flat = path.join(dir, VECTOR_FILES.index);
  const codes = path.join(dir, VECTOR_FILES.quantized);
  const index = new FlatVectorIndex(d);
  index.add(vectors);
  index.write(flat);
  writeQuantizedCodes(codes, vectors, d);
  return { flat, codes };
}

describe('the 8-bit codes file', () => {
  it('is byte for byte what FAISS writes for IndexScalarQuantizer(QT_8bit) over inner product', async (t) => {
    const status = await faissStatus();
    if (!status.available) {
      t.skip(`FAISS binding not available here: ${status.reason ?? ''}`);
      return;
    }
    interface SqIndex {
      train(x: number[]): void;
      add(x: number[]): void;
      toBuffer(): Buffer;
    }
    const faiss = createRequire(import.meta.url)('faiss-node') as {
      Index: { fromFactory(d: number, descriptor: string, metric: number): SqIndex };
      MetricType: { METRIC_INNER_PRODUCT: number };
    };
    for (const [count, d] of [
      [300, 37],
      [64, 256],
    ] as const) {
      const vectors = unitVectors(count, d, count + d);
      const theirs = faiss.Index.fromFactory(d, 'SQ8', faiss.MetricType.METRIC_INNER_PRODUCT);
      const all = vectors.flatMap((v) => Array.from(v));
      theirs.train(all);
      theirs.add(all);
      const trained = trainScalarQuantizer8(vectors, d);
      const ours = encodeScalarQuantizer8(d, count, trained, encodeScalarQuantizer8Codes(vectors, d, trained));
      assert.ok(Buffer.compare(ours, theirs.toBuffer()) === 0, `${count}×${d}`);
    }
  });
});

describe('a flat index searched through its codes', () => {
  it('returns the exact flat index ids and scores, for one query and for several at once', async () => {
    const tmp = makeTempRoot();
    try {
      const d = 48;
      const vectors = unitVectors(3000, d, 7);
      const { flat, codes } = writeIndex(tmp.root, vectors, d);
      const exact = await readVectorIndex(flat, { backend: 'js' });
      const quantized = await openVectorIndex(flat, { backend: 'auto', quantized: codes });
      try {
        assert.equal(quantized.backend, 'sq8');
        assert.equal(quantized.size, 3000);
        const queries = unitVectors(12, d, 99);
        for (const k of [1, 10, 50]) {
          const many = quantized.searchMany!(queries, k);
          queries.forEach((q, i) => {
            const want = exact.search(q, k);
            assert.deepEqual(quantized.search(q, k), want, `k=${k} query ${i}`);
            assert.deepEqual(many[i], want, `k=${k} query ${i} in a batch`);
          });
        }
        // More than the index holds: every row, in the exact order.
        assert.deepEqual(quantized.search(queries[0]!, 5000), exact.search(queries[0]!, 5000));
        assert.throws(() => quantized.add([queries[0]!]), /read-only/);
      } finally {
        quantized.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('gives the same ids and scores streamed (the codes read window by window at each search) as with every code read first', async () => {
    const tmp = makeTempRoot();
    try {
      const d = 24;
      // Past two windows of 2048, the last one partial; and an index smaller than one window.
      for (const count of [4500, 300]) {
        const vectors = unitVectors(count, d, count);
        const dir = path.join(tmp.root, String(count));
        const { flat, codes } = writeIndex(dir, vectors, d);
        const exact = await readVectorIndex(flat, { backend: 'js' });
        const flatFd = openSync(flat, 'r');
        const codesFd = openSync(codes, 'r');
        try {
          const layout = checkFlatIP(fileSource(flatFd), flat);
          const codesLayout = checkCodesFile(codesFd, codes, layout);
          const at = { fd: flatFd, start: layout.start };
          const held = readQuantizedVectorIndex(codesFd, codesLayout, at);
          const streamed = streamQuantizedVectorIndex(codesFd, codesLayout, at);
          const queries = unitVectors(SCAN_QUERIES + 3, d, 5);
          for (const k of [1, 10, 64]) {
            const many = streamed.searchMany(queries, k);
            assert.deepEqual(many, held.searchMany(queries, k), `${count} vectors, k=${k}`);
            queries.forEach((q, i) => assert.deepEqual(many[i], exact.search(q, k), `${count} vectors, k=${k}, query ${i}`));
          }
          // Searched again: each scan reads its windows anew.
          assert.deepEqual(streamed.search(queries[0]!, 10), exact.search(queries[0]!, 10));
        } finally {
          closeSync(codesFd);
          closeSync(flatFd);
        }
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('rescores at least twice the rows wanted, and never more than the index holds', () => {
    assert.equal(rescoreDepth(10, 100_000), 74);
    assert.equal(rescoreDepth(50, 100_000), 114);
    assert.equal(rescoreDepth(100, 100_000), 200);
    assert.equal(rescoreDepth(50, 60), 60);
  });

  it('leaves the exact index to serve, with a warning naming the file, when the codes do not fit it', async () => {
    const tmp = makeTempRoot();
    try {
      const d = 16;
      const { flat, codes } = writeIndex(tmp.root, unitVectors(200, d, 3), d);
      const exact = await readVectorIndex(flat, { backend: 'js' });
      // Codes of another build (fewer vectors), then a truncated file.
      writeQuantizedCodes(codes, unitVectors(150, d, 4), d);
      const other = await openVectorIndex(flat, { backend: 'js', quantized: codes });
      writeFileSync(codes, readFileSync(codes).subarray(0, 100));
      const truncated = await openVectorIndex(flat, { backend: 'js', quantized: codes });
      truncateSync(codes, 0);
      const empty = await openVectorIndex(flat, { backend: 'js', quantized: codes });
      try {
        for (const [index, why] of [
          [other, /150×16 codes for a 200×16 index/],
          [truncated, /truncated/],
          [empty, /truncated header/],
        ] as const) {
          assert.equal(index.backend, 'js');
          assert.equal(index.warnings.length, 1);
          assert.match(index.warnings[0]!.message, why);
          assert.match(index.warnings[0]!.message, /the exact index is searched instead, more slowly; run `exam-copilot ingest --force`/);
          assert.ok(!index.warnings[0]!.message.includes(codes), "the file is named once, as the warning's where");
          assert.equal(index.warnings[0]!.where, codes);
          const q = unitVectors(1, d, 5)[0]!;
          assert.deepEqual(index.search(q, 10), exact.search(q, 10));
        }
      } finally {
        other.close();
        truncated.close();
        empty.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});

describe('ingest and search with vector.quantizeAbove', () => {
  it('writes the codes from that many vectors, and a search then scans them with the exact hits', async () => {
    const fx = await buildFixtureIndex((c) => {
      c.vector.quantizeAbove = 0;
    });
    const small = await buildFixtureIndex();
    try {
      const faissDir = projectPaths(fx.root).faissDir;
      const codes = readFileSync(path.join(faissDir, VECTOR_FILES.quantized));
      assert.equal(codes.subarray(0, 4).toString('latin1'), 'IxSQ');
      assert.throws(() => readFileSync(path.join(projectPaths(small.root).faissDir, VECTOR_FILES.quantized)), /ENOENT/);
      const scanned = await openRetriever({ root: fx.root, config: { ...fx.config, vector: { ...fx.config.vector, backend: 'auto' } } });
      const exact = await openRetriever({ root: fx.root, config: fx.config });
      try {
        assert.equal(scanned.vectorBackend, 'sq8');
        assert.equal(exact.vectorBackend, 'js');
        for (const q of ['基金托管人的职责', '久期与利率风险', '开放式基金申购赎回', 'ETF 一篮子股票']) {
          for (const mode of ['vector', 'hybrid'] as const) {
            const a = await scanned.search(q, { mode, k: 8 });
            const b = await exact.search(q, { mode, k: 8 });
            assert.ok(b.length > 0, q);
            assert.deepEqual(
              a.map((h) => [h.chunk.chunk_id, h.score]),
              b.map((h) => [h.chunk.chunk_id, h.score]),
              `${mode} ${q}`,
            );
          }
        }
      } finally {
        scanned.close();
        exact.close();
      }
    } finally {
      fx.cleanup();
      small.cleanup();
    }
  });
});
