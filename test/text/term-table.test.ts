import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTermTable, readTermTable } from '../../src/text/term-table.js';

const TERMS = ['基金', '托管人', '\u0002基金', '\u0002托', 'etf', '', '𠀀字', 'a'.repeat(300)];

describe('term table', () => {
  it('gives each string its position as id, and -1 for strings it does not hold', () => {
    const table = buildTermTable(TERMS);
    assert.equal(table.size, TERMS.length);
    TERMS.forEach((t, i) => {
      assert.equal(table.id(t), i, t);
      assert.equal(table.term(i), t);
    });
    for (const absent of ['基', '基金托管人', '\u0002基', 'ETF', 'a'.repeat(299), '𠀀']) assert.equal(table.id(absent), -1, absent);
    assert.throws(() => table.term(TERMS.length), RangeError);
  });

  it('reads back what it wrote, also from an unaligned buffer', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `词${i.toString(36)}`);
    const bytes = buildTermTable(many).bytes;
    const shifted = Buffer.alloc(bytes.length + 1);
    shifted.set(bytes, 1);
    for (const read of [readTermTable(bytes), readTermTable(shifted.subarray(1))]) {
      assert.equal(read.size, many.length);
      for (const i of [0, 1, 77, 4999]) {
        assert.equal(read.id(many[i]!), i);
        assert.equal(read.term(i), many[i]);
      }
      assert.equal(read.id('词zzzz'), -1);
    }
  });

  it('holds an empty list', () => {
    const table = readTermTable(buildTermTable([]).bytes);
    assert.equal(table.size, 0);
    assert.equal(table.id('基金'), -1);
  });

  it('refuses a repeated string and bytes that are not a table', () => {
    assert.throws(() => buildTermTable(['基金', '托管', '基金']), /listed twice/);
    const bytes = buildTermTable(TERMS).bytes;
    assert.throws(() => readTermTable(bytes.subarray(0, 10)), /too short/);
    assert.throws(() => readTermTable(bytes.subarray(0, bytes.length - 2)), /bytes, expected/);
    const wrongMagic = new Uint8Array(bytes);
    wrongMagic[0] = 0;
    assert.throws(() => readTermTable(wrongMagic), /not a term table/);
    const badSlot = new Uint8Array(bytes);
    new Uint32Array(badSlot.buffer, 20, 1)[0] = 999;
    assert.throws(() => readTermTable(badSlot), /slot names a string/);
  });
});
