/**
 * The vector store swap point: FAISS (native, via faiss-node) when its binding loads, else an exact JS flat
 * index. Both write FAISS's own file format, so `index/faiss/index.faiss` is readable by either backend and by
 * Python's `faiss.read_index`. Implementations are imported lazily, and faiss-node only through `load-faiss.ts`.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { errorMessage, NotReadyError, UserError } from '../errors.js';
import type { Warning } from '../types.js';
import {
  FOURCC_FLAT_IP,
  FOURCC_HNSW_FLAT,
  checkFlatIP,
  decodeFlatIP,
  fileSource,
  locateHnsw,
  readFourcc,
  type FlatIPLayout,
} from './faiss-format.js';
import { FAISS_FIX, loadFaiss, type FaissIndexHandle, type FaissLoader } from './load-faiss.js';
import type { VectorBackend, VectorBackendChoice, VectorIndex, VectorKind } from './vector-index-contract.js';

export type { VectorBackend, VectorBackendChoice, VectorIndex, VectorKind, VectorSearchResult } from './vector-index-contract.js';

/** Options of `createVectorIndex`. */
export interface CreateVectorIndexOptions {
  dimension: number;
  kind: VectorKind;
  backend: VectorBackendChoice;
  /** HNSW graph degree (FAISS's M); default 32. */
  hnswM?: number;
  /** HNSW build breadth; default 40 (FAISS's default). */
  hnswEfConstruction?: number;
  /** HNSW search breadth, stored in the file; default 128 (FAISS's default of 16 loses recall at k=10; 128 costs well under a millisecond). */
  hnswEfSearch?: number;
  /** How to load faiss-node; injectable for tests. Default: `loadFaiss`. */
  loader?: FaissLoader;
}

/** Options of `readVectorIndex`. */
export interface ReadVectorIndexOptions {
  backend: VectorBackendChoice;
  loader?: FaissLoader;
  /**
   * The 8-bit codes file written next to a large flat index (`writeQuantizedCodes`), when there is one: the flat index
   * is then searched through it (`QuantizedVectorIndex`) and read only for the candidates' exact vectors.
   */
  quantized?: string;
}

/** What `doctor` reports about FAISS. */
export interface FaissStatus {
  available: boolean;
  reason?: string;
  fix?: string;
  version?: string;
}

const DEFAULT_HNSW_M = 32;
const DEFAULT_EF_CONSTRUCTION = 40;
const DEFAULT_EF_SEARCH = 128;

/** An index that can be built and written: FAISS's or the exact JS one. */
export type WritableVectorIndex = VectorIndex & { readonly backend: 'faiss' | 'js' };

/** Creates an empty index of the requested kind on the requested backend. */
export async function createVectorIndex(o: CreateVectorIndexOptions): Promise<WritableVectorIndex> {
  if (!Number.isInteger(o.dimension) || o.dimension <= 0) {
    throw new UserError(
      `vector dimension must be a positive integer, got ${o.dimension}; check the embedder settings in exam-copilot.config.json`,
    );
  }
  const loader = o.loader ?? loadFaiss;
  if (o.kind === 'hnsw' && o.backend === 'js') {
    throw new UserError(
      `HNSW vector indexes need FAISS, but the JS backend was requested; use backend "auto"/"faiss" with FAISS installed (${FAISS_FIX}), or index type "flat"`,
    );
  }
  const warnings: Warning[] = [];
  if (o.backend !== 'js') {
    const loaded = await loader();
    if (loaded.available) {
      const { FaissVectorIndex } = await import('./faiss-vector-index.js');
      if (o.kind === 'hnsw') {
        const m = o.hnswM ?? DEFAULT_HNSW_M;
        if (!Number.isInteger(m) || m < 2)
          throw new UserError(`HNSW M must be an integer >= 2, got ${m}; fix the vector index settings in exam-copilot.config.json`);
        return FaissVectorIndex.hnsw(loaded.faiss, o.dimension, {
          m,
          efConstruction: o.hnswEfConstruction ?? DEFAULT_EF_CONSTRUCTION,
          efSearch: o.hnswEfSearch ?? DEFAULT_EF_SEARCH,
        });
      }
      return FaissVectorIndex.flat(loaded.faiss, o.dimension);
    }
    if (o.backend === 'faiss') {
      throw new UserError(`FAISS backend requested but ${loaded.reason}; fix: ${loaded.fix} (or use vector backend "auto"/"js")`);
    }
    if (o.kind === 'hnsw') {
      warnings.push({
        where: 'vector index',
        message: `HNSW needs FAISS (${loaded.reason}); built an exact flat index with the JS backend instead. To get HNSW: ${loaded.fix}`,
      });
    }
  }
  const { FlatVectorIndex } = await import('./flat-vector-index.js');
  return new FlatVectorIndex(o.dimension, undefined, warnings);
}

/**
 * Reads an index written by either backend (or by Python FAISS: IndexFlatIP and IndexHNSWFlat over inner
 * product). Without FAISS, an HNSW file is still searchable: its stored vectors are searched exactly, with a warning.
 * The layout is checked first, from the few bytes that hold it, so a corrupt file gives one clear line and never
 * reaches native code; FAISS then reads the file itself (for a library's index, much faster than through a buffer).
 */
export async function readVectorIndex(file: string, o: ReadVectorIndexOptions): Promise<VectorIndex> {
  // Every vector read into memory: the codes file is for `openVectorIndex`'s searches.
  const { quantized: _codes, ...exact } = o;
  const opened = await openVectorFile(file, exact);
  try {
    return opened.read();
  } finally {
    closeSync(opened.fd);
  }
}

/** A vector index whose vectors are read at its first use (`openVectorIndex`). */
export interface DeferredVectorIndex extends VectorIndex {
  /** Lets go of the file (a quantized index holds it while open; the others only until their vectors are read). */
  close(): void;
}

/**
 * `readVectorIndex`, with the vectors read at the first search (or add, or write) instead of here: the file's layout
 * is checked now, so a foreign or corrupt index still fails at open, and the file stays open, so the vectors read
 * later are this file's even if an ingest has swapped a new index in meanwhile. A one-shot ask opens the index, posts
 * its keyword queries to the ranking thread, and only then needs the vectors: reading a library's 68 MB then
 * overlaps the ranking instead of coming before it.
 */
export async function openVectorIndex(file: string, o: ReadVectorIndexOptions): Promise<DeferredVectorIndex> {
  const opened = await openVectorFile(file, o);
  let fd: number | null = opened.fd;
  let index: VectorIndex | null = null;
  const release = (): void => {
    if (fd !== null) closeSync(fd);
    fd = null;
    opened.release?.();
  };
  const loaded = (): VectorIndex => {
    if (index) return index;
    if (fd === null) throw new Error(`${file}: the vector index was closed`);
    try {
      index = opened.read();
    } finally {
      // A quantized index reads its candidates' exact vectors from the file at each search.
      if (!opened.keepsFile || !index) release();
    }
    return index;
  };
  return {
    backend: opened.backend,
    kind: opened.kind,
    dimension: opened.layout.dimension,
    warnings: opened.warnings,
    get size() {
      return index ? index.size : opened.layout.count;
    },
    add: (vectors) => loaded().add(vectors),
    search: (query, k) => loaded().search(query, k),
    searchMany(queries, k) {
      const i = loaded();
      return i.searchMany ? i.searchMany(queries, k) : queries.map((q) => i.search(q, k));
    },
    write: (to) => loaded().write(to),
    close: release,
  };
}

/** An index file opened and checked, with the backend chosen (and its module loaded) and how to read its vectors. */
interface OpenedVectorFile {
  fd: number;
  kind: VectorKind;
  layout: FlatIPLayout;
  backend: VectorBackend;
  warnings: readonly Warning[];
  /** Reads the vectors of the open file (synchronous: everything it needs is loaded). */
  read(): VectorIndex;
  /** The index read keeps reading `fd` (a quantized index), so it stays open until `close`. */
  keepsFile?: boolean;
  /** Lets go of what else was opened (a quantized index's codes file, until its codes are read). */
  release?: () => void;
}

async function openVectorFile(file: string, o: ReadVectorIndexOptions): Promise<OpenedVectorFile> {
  if (!existsSync(file)) throw new NotReadyError(`${file}: no vector index; run \`exam-copilot ingest\` to build it`);
  const fd = openSync(file, 'r');
  try {
    const src = fileSource(fd);
    const fourcc = readFourcc(src);
    if (fourcc !== FOURCC_FLAT_IP && fourcc !== FOURCC_HNSW_FLAT) {
      throw new NotReadyError(
        `${file}: unsupported FAISS index type "${fourcc}" (expected IndexFlatIP or IndexHNSWFlat); re-run \`exam-copilot ingest\` to rebuild it`,
      );
    }
    const kind: VectorKind = fourcc === FOURCC_HNSW_FLAT ? 'hnsw' : 'flat';
    const storageOffset = kind === 'hnsw' ? locateHnsw(src, file).storageOffset : 0;
    const layout = checkFlatIP(src, file, storageOffset);
    const warnings: Warning[] = [];
    if (kind === 'flat' && o.quantized && existsSync(o.quantized)) {
      const quantized = await openQuantized(fd, layout, o.quantized, warnings);
      if (quantized) return { fd, kind, layout, backend: 'sq8', warnings, read: quantized.read, keepsFile: true, release: quantized.close };
    }
    const loader = o.loader ?? loadFaiss;
    if (o.backend !== 'js') {
      const loaded = await loader();
      if (loaded.available) {
        const { FaissVectorIndex } = await import('./faiss-vector-index.js');
        const read = (): VectorIndex => {
          let handle: FaissIndexHandle;
          try {
            handle = loaded.faiss.Index.read(openFilePath(fd, file));
          } catch (error) {
            if (error instanceof NotReadyError) throw error;
            const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
            throw new NotReadyError(`${file}: FAISS could not read the index (${message}); re-run \`exam-copilot ingest\` to rebuild it`);
          }
          return FaissVectorIndex.fromHandle(loaded.faiss, handle, kind);
        };
        return { fd, kind, layout, backend: 'faiss', warnings, read };
      }
      if (o.backend === 'faiss') {
        throw new UserError(`FAISS backend requested but ${loaded.reason}; fix: ${loaded.fix} (or use vector backend "auto"/"js")`);
      }
      if (kind === 'hnsw') {
        warnings.push({
          where: file,
          message: `HNSW index searched exactly by the JS backend (${loaded.reason}); to use HNSW: ${loaded.fix}`,
        });
      }
    } else if (kind === 'hnsw') {
      warnings.push({ where: file, message: 'HNSW index searched exactly by the JS backend (backend "js" requested)' });
    }
    const { FlatVectorIndex } = await import('./flat-vector-index.js');
    const read = (): VectorIndex => {
      // Through the open file (only positioned reads were made, so it reads from the start).
      const { data, count, dimension } = decodeFlatIP(readFileSync(fd), file, storageOffset);
      return new FlatVectorIndex(dimension, { data, count }, warnings);
    };
    return { fd, kind, layout, backend: 'js', warnings, read };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * How to read a flat index through its codes file: checked now (a codes file that does not describe this index, or a
 * scan kernel that does not load, leaves the exact index to serve, with a warning); the codes are read at the first
 * search, straight into the kernel's memory, from the file opened here (so they are this build's).
 */
async function openQuantized(
  flatFd: number,
  layout: FlatIPLayout,
  file: string,
  warnings: Warning[],
): Promise<{ read: () => VectorIndex; close: () => void } | null> {
  const [{ checkCodesFile, readQuantizedVectorIndex }, { loadScanKernels }] = await Promise.all([
    import('./quantized-vector-index.js'),
    import('./scan-kernels.js'),
  ]);
  const fd = openSync(file, 'r');
  let open = true;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const codes = checkCodesFile(fd, file, layout);
    loadScanKernels();
    const read = (): VectorIndex => {
      try {
        return readQuantizedVectorIndex(fd, codes, { fd: flatFd, start: layout.start }, warnings);
      } finally {
        close();
      }
    };
    return { read, close };
  } catch (error) {
    close();
    // The warning names the codes file once and gives one fix: a problem of the codes file is told without its name and
    // fixed by rewriting it; a problem of another file (the scan kernel) is told with its name and its own fix.
    const problem = error instanceof UserError ? error.fileProblem : undefined;
    const ofCodes = problem?.file === file;
    const reason = problem ? (ofCodes ? problem.problem : `${problem.file}: ${problem.problem}`) : errorMessage(error).split('\n')[0];
    const fix = problem && !ofCodes ? problem.fix : 'run `exam-copilot ingest --force` to rewrite them';
    warnings.push({
      where: file,
      message: `the 8-bit codes ${problem && !ofCodes ? 'cannot be scanned' : 'are unusable'} (${reason}), so the exact index is searched instead, more slowly; ${fix}`,
    });
    return null;
  }
}

/**
 * A path FAISS can open that names the file open as `fd`: Linux's /proc link to it (the same file even once renamed
 * or deleted), else the path itself while it still is that file.
 */
function openFilePath(fd: number, file: string): string {
  const link = `/proc/self/fd/${fd}`;
  if (existsSync(link)) return link;
  const open = fstatSync(fd);
  const now = existsSync(file) ? statSync(file) : null;
  if (now && now.ino === open.ino && now.dev === open.dev) return file;
  throw new NotReadyError(`${file} was replaced by another ingest while this command ran; run it again`);
}

/** Whether the FAISS binding loads, and if not why and how to fix it (for `doctor`). */
export async function faissStatus(loader: FaissLoader = loadFaiss): Promise<FaissStatus> {
  const loaded = await loader();
  if (loaded.available) return { available: true, version: loaded.version };
  return { available: false, reason: loaded.reason, fix: loaded.fix };
}
