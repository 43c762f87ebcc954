import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { compileKernels, kernelWorkspace } from '../../src/indexing/embedders/dense-kernels.js';
import { UserError } from '../../src/errors.js';
import { addScaledRow } from '../../src/indexing/embedders/vector-math.js';
import { seededRandom } from '../../src/seeded-random.js';
import { makeTempRoot } from '../helpers/temp-root.js';

/**
 * The kernels must give, bit for bit, what the plain JavaScript loops give (the LSA fit's model id and vectors
 * depend on it), so each is checked against such a loop on random inputs, with even and odd widths (the SIMD
 * kernels do two elements at once and one alone at an odd end).
 */

interface Csr {
  rows: number;
  cols: number;
  rowStart: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

function randomCsr(rand: () => number, rows: number, cols: number, perRow: number): Csr {
  const rowStart = new Int32Array(rows + 1);
  const indices: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < rows; i++) {
    const picked = new Set<number>();
    // Some rows stay empty, as a chunk with no known feature does.
    const want = i % 5 === 3 ? 0 : 1 + Math.floor(rand() * perRow);
    while (picked.size < Math.min(want, cols)) picked.add(Math.floor(rand() * cols));
    for (const j of [...picked].sort((a, b) => a - b)) {
      indices.push(j);
      values.push(rand() - 0.3);
    }
    rowStart[i + 1] = indices.length;
  }
  return { rows, cols, rowStart, indices: Int32Array.from(indices), values: Float64Array.from(values) };
}

const randomArray = (rand: () => number, n: number): Float64Array => Float64Array.from({ length: n }, () => rand() * 2 - 1);

/** A workspace holding `x`'s compressed rows plus the named f64 blocks. */
function withCsr<B extends Record<string, number>>(x: Csr, blocks: B) {
  const layout = {
    rowStart: ['i32', x.rows + 1] as const,
    indices: ['i32', x.indices.length] as const,
    values: ['f64', x.values.length] as const,
    ...(Object.fromEntries(Object.entries(blocks).map(([name, n]) => [name, ['f64', n] as const])) as {
      [N in keyof B]: readonly ['f64', number];
    }),
  };
  const ws = kernelWorkspace(layout);
  ws.arrays.rowStart.set(x.rowStart);
  ws.arrays.indices.set(x.indices);
  ws.arrays.values.set(x.values);
  return ws;
}

/** Plain Gram-Schmidt as the fit did it in JavaScript: twice per column, `r !== 0` skipped, tiny columns zeroed. */
function plainOrthonormalize(cols: Float64Array[]): void {
  const dot = (a: Float64Array, b: Float64Array): number => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
    return s;
  };
  for (let j = 0; j < cols.length; j++) {
    const cj = cols[j]!;
    const before = Math.sqrt(dot(cj, cj));
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < j; i++) {
        const r = dot(cols[i]!, cj);
        if (r !== 0) for (let t = 0; t < cj.length; t++) cj[t]! += -r * cols[i]![t]!;
      }
    }
    const norm = Math.sqrt(dot(cj, cj));
    if (norm <= 1e-10 * Math.max(before, 1e-300)) cj.fill(0);
    else for (let t = 0; t < cj.length; t++) cj[t]! /= norm;
  }
}

describe('dense kernels (WebAssembly)', () => {
  it('multiply a sparse matrix by a dense one, and its transpose, as the plain loops do', () => {
    const rand = seededRandom(3);
    for (const l of [1, 6, 7]) {
      const x = randomCsr(rand, 23, 41, 9);
      const w = randomArray(rand, x.cols * l);
      const q = randomArray(rand, x.rows * l);
      const expectedY = new Float64Array(x.rows * l);
      const expectedZ = new Float64Array(x.cols * l);
      for (let i = 0; i < x.rows; i++)
        for (let p = x.rowStart[i]!; p < x.rowStart[i + 1]!; p++) {
          const j = x.indices[p]!;
          for (let c = 0; c < l; c++) {
            expectedY[i * l + c]! += x.values[p]! * w[j * l + c]!;
            expectedZ[j * l + c]! += x.values[p]! * q[i * l + c]!;
          }
        }
      const ws = withCsr(x, { w: w.length, y: x.rows * l, q: q.length, z: x.cols * l });
      ws.arrays.w.set(w);
      ws.arrays.q.set(q);
      ws.kernels.csrTimesDense(x.rows, ws.at.rowStart, ws.at.indices, ws.at.values, ws.at.w, ws.at.y, l);
      ws.kernels.csrTransposedTimesDense(x.rows, ws.at.rowStart, ws.at.indices, ws.at.values, ws.at.q, ws.at.z, l);
      assert.deepEqual(ws.arrays.y, expectedY, `X·W with l = ${l}`);
      assert.deepEqual(ws.arrays.z, expectedZ, `Xᵀ·Q with l = ${l}`);
    }
  });

  it('orthonormalise columns as plain Gram-Schmidt does, zeroing a column that depends on the others', () => {
    const rand = seededRandom(5);
    const m = 13;
    const l = 5;
    const columns = Array.from({ length: l }, () => randomArray(rand, m));
    // Column 3 is column 0 plus twice column 1: nothing is left of it once those are taken out.
    columns[3] = columns[0]!.map((v, i) => v + 2 * columns[1]![i]!);
    const ws = kernelWorkspace({ columns: ['f64', m * l] });
    columns.forEach((c, j) => ws.arrays.columns.set(c, j * m));
    plainOrthonormalize(columns);
    ws.kernels.orthonormalizeColumns(ws.at.columns, m, l);
    assert.deepEqual(ws.arrays.columns, Float64Array.from(columns.flatMap((c) => [...c])));
    assert.ok(
      columns[3].every((v) => v === 0),
      'the dependent column is zero',
    );
    for (const a of [0, 1, 2, 4])
      for (const b of [0, 1, 2, 4]) {
        let dot = 0;
        for (let i = 0; i < m; i++) dot += columns[a]![i]! * columns[b]![i]!;
        assert.ok(Math.abs(dot - (a === b ? 1 : 0)) < 1e-12, `columns ${a} and ${b}`);
      }
  });

  it('form Qᵀ·Y, skipping zero entries of Q, and the rows Q·Uᵀ / s, as the plain loops do', () => {
    const rand = seededRandom(8);
    // More rows than a call takes (16), and r with and without a remainder after groups of four.
    const m = 37;
    const l = 7;
    for (const r of [4, 7]) {
      const q = randomArray(rand, m * l);
      for (let i = 0; i < m * l; i += 5) q[i] = 0;
      const y = randomArray(rand, m * l);
      const u = randomArray(rand, r * l);
      const s = Float64Array.from({ length: r }, () => 0.5 + rand() * 3);
      const expectedC = new Float64Array(l * l);
      for (let i = 0; i < m; i++)
        for (let a = 0; a < l; a++) {
          const qa = q[i * l + a]!;
          if (qa === 0) continue;
          for (let b = 0; b < l; b++) expectedC[a * l + b]! += qa * y[i * l + b]!;
        }
      const expectedW = new Float64Array(m * r);
      for (let i = 0; i < m; i++)
        for (let k = 0; k < r; k++) {
          let sum = 0;
          for (let a = 0; a < l; a++) sum += q[i * l + a]! * u[k * l + a]!;
          expectedW[i * r + k] = sum / s[k]!;
        }
      const ws = kernelWorkspace({
        q: ['f64', m * l],
        y: ['f64', m * l],
        c: ['f64', l * l],
        u: ['f64', r * l],
        s: ['f64', r],
        w: ['f64', m * r],
      });
      ws.arrays.q.set(q);
      ws.arrays.y.set(y);
      ws.arrays.u.set(u);
      ws.arrays.s.set(s);
      ws.kernels.crossProduct(ws.at.q, ws.at.y, ws.at.c, m, l);
      ws.kernels.projectRows(ws.at.q, ws.at.u, ws.at.s, ws.at.w, m, r, l);
      assert.deepEqual(ws.arrays.c, expectedC, `r = ${r}`);
      assert.deepEqual(ws.arrays.w, expectedW, `r = ${r}`);
    }
  });

  it('fold rows into float32 embeddings exactly as the model embeds a text (addScaledRow)', () => {
    const rand = seededRandom(13);
    for (const d of [1, 8, 9]) {
      const x = randomCsr(rand, 17, 29, 12);
      const projection = Float32Array.from({ length: x.cols * d }, () => rand() * 2 - 1);
      const expected = new Float32Array(x.rows * d);
      for (let i = 0; i < x.rows; i++) {
        const row = expected.subarray(i * d, (i + 1) * d);
        for (let p = x.rowStart[i]!; p < x.rowStart[i + 1]!; p++) addScaledRow(row, x.values[p]!, projection, x.indices[p]! * d);
      }
      const ws = kernelWorkspace({
        rowStart: ['i32', x.rows + 1],
        indices: ['i32', x.indices.length],
        values: ['f64', x.values.length],
        projection: ['f32', projection.length],
        out: ['f32', x.rows * d],
      });
      ws.arrays.rowStart.set(x.rowStart);
      ws.arrays.indices.set(x.indices);
      ws.arrays.values.set(x.values);
      ws.arrays.projection.set(projection);
      ws.kernels.embedRows(x.rows, ws.at.rowStart, ws.at.indices, ws.at.values, ws.at.projection, ws.at.out, d);
      assert.deepEqual(ws.arrays.out, expected, `d = ${d}`);
    }
  });

  it('give each workspace its own zero-filled memory, every block on 16 bytes', () => {
    const a = kernelWorkspace({ x: ['f64', 3], n: ['i32', 5], y: ['f32', 7] });
    for (const name of ['x', 'n', 'y'] as const) {
      assert.equal(a.at[name] % 16, 0, name);
      assert.ok(
        a.arrays[name].every((v) => v === 0),
        `${name} starts at zero`,
      );
    }
    assert.ok(a.at.n >= a.at.x + 24 && a.at.y >= a.at.n + 20, 'blocks do not overlap');
    a.arrays.x.fill(1);
    assert.deepEqual(kernelWorkspace({ x: ['f64', 3] }).arrays.x, new Float64Array(3), 'another workspace does not see it');
  });

  it('name the kernels file and say to reinstall when it is missing or damaged, on one line', () => {
    const temp = makeTempRoot();
    const dir = temp.root;
    const damaged = path.join(dir, 'dense-kernels.wasm');
    writeFileSync(damaged, 'not wasm');
    try {
      for (const [file, why] of [
        [path.join(dir, 'missing.wasm'), /ENOENT/],
        [damaged, /not a usable WebAssembly module/],
      ] as const) {
        assert.throws(
          () => compileKernels(file),
          (e: unknown) =>
            e instanceof UserError &&
            e.message.startsWith(file) &&
            why.test(e.message) &&
            /reinstall exam-copilot$/.test(e.message) &&
            !e.message.includes('\n'),
        );
      }
    } finally {
      temp.cleanup();
    }
  });
});
