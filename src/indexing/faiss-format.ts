/**
 * FAISS's on-disk index format (`faiss::write_index`, faiss/impl/index_write.cpp), for the two index types this
 * project writes. Little-endian, as FAISS writes raw structs on x86-64/arm64.
 *
 * Common header (`write_index_header`), after a 4-byte fourcc:
 *   int32 d | int64 ntotal | int64 dummy (1<<20) | int64 dummy (1<<20) | uint8 is_trained | int32 metric_type
 *   [| float metric_arg, only when metric_type > 1]
 * IndexFlatIP ("IxFI"): header, then the codes vector (`WRITEXBVECTOR`): uint64 count of floats, then count float32.
 * IndexScalarQuantizer ("IxSQ"), 8 bits per dimension: header, then `write_ScalarQuantizer`: int32 qtype (0, QT_8bit) |
 *   int32 rangestat (0, RS_minmax) | float rangestat_arg | uint64 d | uint64 code_size | float[] trained (vmin[d] then
 *   vdiff[d]), then the codes: uint64 count of bytes, then count uint8 (code_size per vector).
 * IndexHNSWFlat ("IHNf"): header, then `write_HNSW` (vectors are uint64 count + items):
 *   double[] assign_probas | int32[] cum_nneighbor_per_level | int32[] levels | uint64[] offsets |
 *   int32[] neighbors | int32 entry_point | int32 max_level | int32 efConstruction | int32 efSearch |
 *   int32 upper_beam, then the storage index written recursively (an "IxFI" for inner product).
 * Keeping the JS writer byte-identical to FAISS means `index/faiss/index.faiss` is readable by Python's
 * `faiss.read_index` and by faiss-node whichever backend wrote it.
 */
import { fstatSync, readSync } from 'node:fs';
import { NotReadyError } from '../errors.js';

/** fourcc of `IndexFlatIP`. */
export const FOURCC_FLAT_IP = 'IxFI';
/** fourcc of `IndexHNSWFlat`. */
export const FOURCC_HNSW_FLAT = 'IHNf';
/** fourcc of `IndexScalarQuantizer`. */
export const FOURCC_SCALAR_QUANTIZER = 'IxSQ';

const METRIC_INNER_PRODUCT = 0;
/** FAISS writes this placeholder twice in every header (historical fields). */
const HEADER_DUMMY = 1n << 20n;
/** fourcc + d + ntotal + 2 dummies + is_trained + metric_type. */
const HEADER_BYTES = 4 + 4 + 8 + 8 + 8 + 1 + 4;

/** The common index header. */
export interface FaissHeader {
  fourcc: string;
  dimension: number;
  count: number;
  metricType: number;
  /** Offset of the first byte after the header. */
  end: number;
}

/** Vectors decoded from an `IndexFlatIP` section. */
export interface FlatIPData {
  dimension: number;
  count: number;
  /** `count * dimension` floats, row-major. */
  data: Float32Array;
  /** Offset of the first byte after the section. */
  end: number;
}

/** Byte offsets of the tunable HNSW search parameters inside an "IHNf" file, plus its header. */
export interface HnswLayout {
  header: FaissHeader;
  efConstructionOffset: number;
  efSearchOffset: number;
  /** Offset where the nested storage index ("IxFI") starts. */
  storageOffset: number;
}

function corrupt(where: string, detail: string): NotReadyError {
  return new NotReadyError({
    file: where,
    problem: `unreadable FAISS index (${detail})`,
    fix: 're-run `exam-copilot ingest` to rebuild it',
  });
}

/**
 * What the format checks read: the total length, and the bytes at an offset. A whole file in memory, or an open file
 * read only where the fields are (`fileSource`): checking a library's 86 MB HNSW index reads a few hundred bytes.
 */
export interface ByteSource {
  readonly length: number;
  /** `length` bytes from `offset`, fewer at the end of the source. */
  bytes(offset: number, length: number): Buffer;
}

/** A buffer as a byte source. */
export function bufferSource(buf: Buffer): ByteSource {
  return { length: buf.length, bytes: (offset, length) => buf.subarray(offset, offset + length) };
}

/** An open file as a byte source (positioned reads; the caller closes `fd`). */
export function fileSource(fd: number): ByteSource {
  const size = fstatSync(fd).size;
  return {
    length: size,
    bytes(offset, length) {
      const out = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      const read = out.length > 0 ? readSync(fd, out, 0, out.length, offset) : 0;
      return out.subarray(0, read);
    },
  };
}

/** The first four bytes as text, or '' when the source is shorter. */
export function readFourcc(src: ByteSource, offset = 0): string {
  const b = src.bytes(offset, 4);
  return b.length === 4 ? b.toString('latin1') : '';
}

/** Reads the common header at `offset`. */
export function readHeader(src: ByteSource, where: string, offset = 0): FaissHeader {
  const b = src.bytes(offset, HEADER_BYTES);
  if (b.length < HEADER_BYTES) throw corrupt(where, 'truncated header');
  const fourcc = b.toString('latin1', 0, 4);
  const dimension = b.readInt32LE(4);
  const count = Number(b.readBigInt64LE(8));
  const metricType = b.readInt32LE(33);
  if (dimension <= 0 || count < 0) throw corrupt(where, `bad header d=${dimension} ntotal=${count}`);
  // metric_arg is only written for metrics beyond L2/IP.
  const end = offset + HEADER_BYTES + (metricType > 1 ? 4 : 0);
  return { fourcc, dimension, count, metricType, end };
}

/** The little-endian uint64 at `offset`, or null past the end of the source. */
function readCount(src: ByteSource, offset: number): number | null {
  const b = src.bytes(offset, 8);
  return b.length === 8 ? Number(b.readBigUInt64LE(0)) : null;
}

/**
 * An exact inner-product index exactly as FAISS's `write_index(IndexFlatIP)` serialises it: this header, then the
 * `count × dimension` floats as they are (little-endian float32, row after row). Returned in two parts so a large
 * index goes to its file without a copy of its vectors.
 */
export function encodeFlatIP(dimension: number, count: number, data: Float32Array): [header: Buffer, vectors: Uint8Array] {
  const floats = dimension * count;
  if (data.length < floats) throw new Error(`encodeFlatIP: ${data.length} floats < ${count}×${dimension}`);
  const header = Buffer.alloc(HEADER_BYTES + 8);
  header.write(FOURCC_FLAT_IP, 0, 'latin1');
  header.writeInt32LE(dimension, 4);
  header.writeBigInt64LE(BigInt(count), 8);
  header.writeBigInt64LE(HEADER_DUMMY, 16);
  header.writeBigInt64LE(HEADER_DUMMY, 24);
  header.writeUInt8(1, 32); // is_trained: a flat index is always trained
  header.writeInt32LE(METRIC_INNER_PRODUCT, 33);
  header.writeBigUInt64LE(BigInt(floats), HEADER_BYTES);
  return [header, new Uint8Array(data.buffer, data.byteOffset, floats * 4)];
}

/** Header bytes plus the quantizer's fixed fields: qtype, rangestat, rangestat_arg, d, code_size. */
const SQ_FIXED_BYTES = HEADER_BYTES + 4 + 4 + 4 + 8 + 8;

/**
 * Serialises an 8-bit scalar quantizer index over inner product exactly as FAISS's `write_index` does for
 * `IndexScalarQuantizer(d, QT_8bit, METRIC_INNER_PRODUCT)` trained with RS_minmax: `trained` holds vmin then vdiff.
 */
export function encodeScalarQuantizer8(dimension: number, count: number, trained: Float32Array, codes: Uint8Array): Buffer {
  if (trained.length !== 2 * dimension) throw new Error(`encodeScalarQuantizer8: ${trained.length} trained floats for d=${dimension}`);
  if (codes.length !== count * dimension) throw new Error(`encodeScalarQuantizer8: ${codes.length} code bytes for ${count}×${dimension}`);
  const codesAt = SQ_FIXED_BYTES + 8 + trained.length * 4;
  const buf = Buffer.alloc(codesAt + 8 + codes.length);
  buf.write(FOURCC_SCALAR_QUANTIZER, 0, 'latin1');
  buf.writeInt32LE(dimension, 4);
  buf.writeBigInt64LE(BigInt(count), 8);
  buf.writeBigInt64LE(HEADER_DUMMY, 16);
  buf.writeBigInt64LE(HEADER_DUMMY, 24);
  buf.writeUInt8(1, 32); // is_trained
  buf.writeInt32LE(METRIC_INNER_PRODUCT, 33);
  let at = HEADER_BYTES;
  buf.writeInt32LE(0, at); // QT_8bit
  buf.writeInt32LE(0, at + 4); // RS_minmax
  buf.writeFloatLE(0, at + 8); // rangestat_arg
  buf.writeBigUInt64LE(BigInt(dimension), at + 12);
  buf.writeBigUInt64LE(BigInt(dimension), at + 20); // code_size: one byte per dimension
  at = SQ_FIXED_BYTES;
  buf.writeBigUInt64LE(BigInt(trained.length), at);
  buf.set(new Uint8Array(trained.buffer, trained.byteOffset, trained.length * 4), at + 8);
  buf.writeBigUInt64LE(BigInt(codes.length), codesAt);
  buf.set(codes, codesAt + 8);
  return buf;
}

/** Where an 8-bit scalar quantizer file's parts lie, once its header and fields are checked. */
export interface ScalarQuantizer8Layout {
  dimension: number;
  count: number;
  /** vmin[d] then vdiff[d], read from the file. */
  trained: Float32Array;
  /** Byte offset of the codes (`count × dimension` bytes). */
  codesStart: number;
}

/** Checks an "IxSQ" file of the kind `encodeScalarQuantizer8` writes and reads its trained ranges, not its codes. */
export function checkScalarQuantizer8(src: ByteSource, where: string): ScalarQuantizer8Layout {
  const header = readHeader(src, where, 0);
  if (header.fourcc !== FOURCC_SCALAR_QUANTIZER) throw corrupt(where, `expected ${FOURCC_SCALAR_QUANTIZER}, found "${header.fourcc}"`);
  if (header.metricType !== METRIC_INNER_PRODUCT) throw corrupt(where, `metric ${header.metricType} is not inner product`);
  const fields = src.bytes(header.end, SQ_FIXED_BYTES - HEADER_BYTES + 8);
  if (fields.length < SQ_FIXED_BYTES - HEADER_BYTES + 8) throw corrupt(where, 'truncated quantizer');
  const qtype = fields.readInt32LE(0);
  const rangestat = fields.readInt32LE(4);
  const d = Number(fields.readBigUInt64LE(12));
  const codeSize = Number(fields.readBigUInt64LE(20));
  const trainedCount = Number(fields.readBigUInt64LE(28));
  if (qtype !== 0 || rangestat !== 0) throw corrupt(where, `quantizer type ${qtype}/${rangestat} is not 8-bit min-max`);
  if (d !== header.dimension || codeSize !== d || trainedCount !== 2 * d)
    throw corrupt(where, `quantizer fields d=${d} code_size=${codeSize}`);
  const trainedAt = header.end + fields.length;
  const trainedBytes = src.bytes(trainedAt, trainedCount * 4);
  if (trainedBytes.length < trainedCount * 4) throw corrupt(where, 'truncated quantizer ranges');
  const trained = new Float32Array(trainedCount);
  new Uint8Array(trained.buffer).set(trainedBytes);
  const codesAt = trainedAt + trainedCount * 4;
  const bytes = readCount(src, codesAt);
  if (bytes === null || bytes !== header.count * d) throw corrupt(where, `${bytes ?? 'no'} code bytes for ${header.count}×${d}`);
  const codesStart = codesAt + 8;
  if (src.length < codesStart + bytes) throw corrupt(where, 'truncated codes');
  return { dimension: d, count: header.count, trained, codesStart };
}

/** Where an `IndexFlatIP` section's vectors lie, once its header, metric and length are checked. */
export interface FlatIPLayout {
  dimension: number;
  count: number;
  /** Byte offsets of the vector data. */
  start: number;
  end: number;
}

/**
 * Checks an `IndexFlatIP` section starting at `offset` (a whole file, or the storage inside an HNSW file) without
 * copying its vectors: what FAISS is handed must be well formed, but FAISS reads the bytes itself.
 */
export function checkFlatIP(src: ByteSource, where: string, offset = 0): FlatIPLayout {
  const header = readHeader(src, where, offset);
  if (header.fourcc !== FOURCC_FLAT_IP) throw corrupt(where, `expected ${FOURCC_FLAT_IP}, found "${header.fourcc}"`);
  if (header.metricType !== METRIC_INNER_PRODUCT) throw corrupt(where, `metric ${header.metricType} is not inner product`);
  const floats = readCount(src, header.end);
  if (floats === null) throw corrupt(where, 'truncated vector data');
  if (floats !== header.count * header.dimension) {
    throw corrupt(where, `${floats} floats stored for ${header.count}×${header.dimension}`);
  }
  const start = header.end + 8;
  const end = start + floats * 4;
  if (src.length < end) throw corrupt(where, 'truncated vector data');
  return { dimension: header.dimension, count: header.count, start, end };
}

/** Decodes an `IndexFlatIP` section starting at `offset` (a whole file, or the storage inside an HNSW file). */
export function decodeFlatIP(buf: Buffer, where: string, offset = 0): FlatIPData {
  const { dimension, count, start, end } = checkFlatIP(bufferSource(buf), where, offset);
  const floats = dimension * count;
  // Copy: the data starts at an unaligned offset (45 bytes in), which a Float32Array view cannot use.
  const data = new Float32Array(floats);
  new Uint8Array(data.buffer).set(buf.subarray(start, end));
  return { dimension, count, data, end };
}

/** Walks an "IHNf" file far enough to find efConstruction/efSearch and the nested storage. */
export function locateHnsw(src: ByteSource, where: string): HnswLayout {
  const header = readHeader(src, where, 0);
  if (header.fourcc !== FOURCC_HNSW_FLAT) throw corrupt(where, `expected ${FOURCC_HNSW_FLAT}, found "${header.fourcc}"`);
  let offset = header.end;
  // assign_probas (double), cum_nneighbor_per_level (int32), levels (int32), offsets (uint64), neighbors (int32)
  for (const itemBytes of [8, 4, 4, 8, 4]) {
    const n = readCount(src, offset);
    if (n === null) throw corrupt(where, 'truncated HNSW graph');
    offset += 8 + n * itemBytes;
  }
  // entry_point, max_level, efConstruction, efSearch, upper_beam
  if (src.length < offset + 20) throw corrupt(where, 'truncated HNSW graph');
  return { header, efConstructionOffset: offset + 8, efSearchOffset: offset + 12, storageOffset: offset + 20 };
}

/** Reads the HNSW build/search breadth stored in an "IHNf" file. */
export function readHnswParams(buf: Buffer, where: string): { efConstruction: number; efSearch: number } {
  const layout = locateHnsw(bufferSource(buf), where);
  return { efConstruction: buf.readInt32LE(layout.efConstructionOffset), efSearch: buf.readInt32LE(layout.efSearchOffset) };
}

/**
 * Sets efConstruction/efSearch in a serialised "IHNf" index, in place. faiss-node exposes no setter for them,
 * and they are part of the file, so a patched file keeps its settings when Python or faiss-node reads it.
 */
export function patchHnswParams(buf: Buffer, where: string, params: { efConstruction?: number; efSearch?: number }): void {
  const layout = locateHnsw(bufferSource(buf), where);
  if (params.efConstruction !== undefined) buf.writeInt32LE(params.efConstruction, layout.efConstructionOffset);
  if (params.efSearch !== undefined) buf.writeInt32LE(params.efSearch, layout.efSearchOffset);
}
