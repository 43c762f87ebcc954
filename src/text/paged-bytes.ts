import { closeSync, fstatSync, readSync } from 'node:fs';

/** Bytes per page read from a file (a power of two, a multiple of 4 so no 32-bit value straddles two pages). */
const PAGE_SHIFT = 9;
const PAGE_BYTES = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_BYTES - 1;
/**
 * Share of the file read page by page before the rest is read at once: a batch of queries (eval, a server) soon
 * touches most of the table, and then one read costs less than thousands of small ones.
 */
const WHOLE_AFTER_SHARE = 1 / 16;

/** Closes the descriptor of a paged file that is dropped before it was read whole. */
const openFiles = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/**
 * Little-endian bytes read by offset, either from an array in memory or from a file a small page at a time.
 *
 * Why pages: one question looks up a few hundred scattered entries of jieba's 10 MB lookup table
 * (`dictionary-table.ts`). Reading the whole file costs tens of milliseconds, mostly the first touch of 10 MB of
 * fresh memory, which is more than everything else that looking a question up does; reading the few hundred
 * 512-byte pages it needs costs about a millisecond. Offsets must be aligned to the value's size.
 */
export class PagedBytes {
  /** Byte length. */
  readonly size: number;
  private whole: Uint8Array | null = null;
  private whole16: Uint16Array | null = null;
  private whole32: Uint32Array | null = null;
  private readonly pages: (Uint8Array | undefined)[] = [];
  private readonly pages16: (Uint16Array | undefined)[] = [];
  private readonly pages32: (Uint32Array | undefined)[] = [];
  private pagesRead = 0;
  private fd: number | null = null;

  private constructor(
    size: number,
    private readonly start: number,
  ) {
    this.size = size;
  }

  /** Bytes already in memory (copied once when they are not 4-byte aligned, as typed-array views need). */
  static ofArray(bytes: Uint8Array): PagedBytes {
    const paged = new PagedBytes(bytes.byteLength, 0);
    paged.setWhole(bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes));
    return paged;
  }

  /**
   * `size` bytes of an open file from position `start` (a multiple of 4), read on demand. Takes over `fd`: it is
   * closed once the file has been read whole, or when the object is garbage-collected.
   */
  static ofFile(fd: number, start: number, size: number): PagedBytes {
    const paged = new PagedBytes(size, start);
    paged.fd = fd;
    openFiles.register(paged, fd, paged);
    return paged;
  }

  u8(offset: number): number {
    const whole = this.whole;
    if (whole) return whole[offset] ?? 0;
    if (offset >= this.size) return 0;
    const page = this.pages[offset >>> PAGE_SHIFT];
    return page ? (page[offset & PAGE_MASK] ?? 0) : this.load(offset).u8(offset);
  }

  u16(offset: number): number {
    const whole = this.whole16;
    if (whole) return whole[offset >>> 1] ?? 0;
    if (offset >= this.size) return 0;
    const page = this.pages16[offset >>> PAGE_SHIFT];
    return page ? (page[(offset & PAGE_MASK) >>> 1] ?? 0) : this.load(offset).u16(offset);
  }

  u32(offset: number): number {
    const whole = this.whole32;
    if (whole) return whole[offset >>> 2] ?? 0;
    if (offset >= this.size) return 0;
    const page = this.pages32[offset >>> PAGE_SHIFT];
    return page ? (page[(offset & PAGE_MASK) >>> 2] ?? 0) : this.load(offset).u32(offset);
  }

  /** Closes the file now: pages not read by then can no longer be. Nothing to do for bytes in memory or read whole. */
  close(): void {
    if (this.fd === null) return;
    openFiles.unregister(this);
    closeSync(this.fd);
    this.fd = null;
  }

  /** A copy of `length` bytes from `offset` (clipped to the size). */
  slice(offset: number, length: number): Uint8Array {
    const end = Math.min(this.size, offset + length);
    const out = new Uint8Array(Math.max(0, end - offset));
    for (let i = 0; i < out.length; i++) out[i] = this.u8(offset + i);
    return out;
  }

  /** Reads the page holding `offset` (an offset within the size), or past the share the whole file; returns this. */
  private load(offset: number): this {
    const fd = this.fd;
    if (fd === null) throw new Error('read after the file was closed');
    if ((this.pagesRead + 1) * PAGE_BYTES > this.size * WHOLE_AFTER_SHARE) {
      const whole = new Uint8Array(this.size);
      this.readFully(fd, whole, 0);
      this.setWhole(whole);
      return this;
    }
    const p = offset >>> PAGE_SHIFT;
    const from = p * PAGE_BYTES;
    const bytes = new Uint8Array(PAGE_BYTES);
    this.readFully(fd, bytes.subarray(0, Math.min(PAGE_BYTES, this.size - from)), from);
    this.pages[p] = bytes;
    this.pages16[p] = new Uint16Array(bytes.buffer);
    this.pages32[p] = new Uint32Array(bytes.buffer);
    this.pagesRead++;
    return this;
  }

  private readFully(fd: number, into: Uint8Array, from: number): void {
    let done = 0;
    while (done < into.byteLength) {
      const n = readSync(fd, into, done, into.byteLength - done, this.start + from + done);
      // The file was cut short after it was checked: nothing sensible can be looked up any more.
      if (n === 0) throw new Error(`file is ${fstatSync(fd).size} bytes, expected ${this.start + this.size}`);
      done += n;
    }
  }

  private setWhole(bytes: Uint8Array): void {
    this.whole = bytes;
    this.whole16 = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1);
    this.whole32 = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
    this.pages.length = 0;
    this.pages16.length = 0;
    this.pages32.length = 0;
    this.close();
  }
}
