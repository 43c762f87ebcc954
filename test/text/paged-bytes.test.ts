import assert from 'node:assert/strict';
import { openSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PagedBytes } from '../../src/text/paged-bytes.js';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.js';

describe('paged bytes', () => {
  let tmp: TempRoot;
  let file: string;
  /** 64 KiB of known bytes after an 8-byte prefix that is not part of the range. */
  const data = new Uint8Array(64 * 1024).map((_, i) => (i * 7 + (i >>> 8)) & 0xff);
  const view = new DataView(data.buffer);
  before(() => {
    tmp = makeTempRoot();
    file = path.join(tmp.root, 'bytes.bin');
    writeFileSync(file, Buffer.concat([Buffer.from('prefix!!'), data]));
  });
  after(() => tmp.cleanup());

  it('reads the same little-endian values from a file, page by page and then whole, as from memory', () => {
    const fromFile = PagedBytes.ofFile(openSync(file, 'r'), 8, data.byteLength);
    const inMemory = PagedBytes.ofArray(data);
    // Scattered offsets first (single pages), then every offset (past the share that reads the rest whole).
    const offsets = [60_000, 4, 1_000, 33_332, 65_532, ...Array.from({ length: data.byteLength / 4 }, (_, i) => i * 4)];
    for (const o of offsets) {
      assert.equal(fromFile.u32(o), view.getUint32(o, true), `u32 at ${o}`);
      assert.equal(fromFile.u16(o + 2), view.getUint16(o + 2, true), `u16 at ${o + 2}`);
      assert.equal(fromFile.u8(o + 1), data[o + 1], `u8 at ${o + 1}`);
      assert.equal(inMemory.u32(o), view.getUint32(o, true));
    }
    assert.deepEqual(fromFile.slice(65_530, 100), data.subarray(65_530));
    assert.equal(fromFile.u32(data.byteLength), 0, 'past the end reads as zero');
  });

  it('a file cut short after it was opened fails with the byte where it ended, not with zeros', () => {
    const cut = path.join(tmp.root, 'cut.bin');
    writeFileSync(cut, data);
    const paged = PagedBytes.ofFile(openSync(cut, 'r'), 0, data.byteLength);
    assert.equal(paged.u8(10), data[10]);
    truncateSync(cut, 1_000);
    assert.throws(() => paged.u32(40_000), /file is 1000 bytes, expected 65536/);
  });

  it('once closed, keeps the pages it read and refuses to read others', () => {
    const paged = PagedBytes.ofFile(openSync(file, 'r'), 8, data.byteLength);
    assert.equal(paged.u32(1_024), view.getUint32(1_024, true));
    paged.close();
    paged.close();
    assert.equal(paged.u32(1_024), view.getUint32(1_024, true));
    assert.throws(() => paged.u32(50_000), /read after the file was closed/);
  });

  it('memory that is not 4-byte aligned is read correctly', () => {
    const shifted = new Uint8Array(data.byteLength + 1);
    shifted.set(data, 1);
    const paged = PagedBytes.ofArray(shifted.subarray(1));
    assert.equal(paged.u32(400), view.getUint32(400, true));
    assert.equal(paged.u16(402), view.getUint16(402, true));
  });
});
