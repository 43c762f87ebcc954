import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NotReadyError } from '../../errors.js';
import type { Analyzer } from '../../text/analyzer.js';
import { buildTermTable, readTermTable, type TermTable } from '../../text/term-table.js';
import { LsaModel, type LsaState, type Projection } from './lsa-model.js';

/** A fitted LSA model on disk: where `saveLsa` writes it and `loadLsa` reads it back. */

const STATE_FILE = 'lsa.json';
const PROJECTION_FILE = 'lsa-projection.f32';
/**
 * The vocabulary as a term table (`text/term-table.ts`) and each term's global weight as float64, beside the JSON
 * since format 3: read as they are, where the JSON arrays of format 2 took a parse and a Map of every term.
 */
const TERMS_FILE = 'lsa-terms.bin';
const WEIGHTS_FILE = 'lsa-idf.f64';
/** The saved format (part of the corpus hash, so a fit saved by another format is never reused). */
export const STATE_VERSION = 3;
/** A fit saved by format 2 (vocabulary and weights inside the JSON) is still read. */
const JSON_VOCABULARY_VERSION = 2;

/** What `lsa.json` holds: the state's scalars, and in format 2 also the vocabulary and weights. */
type LsaStateFile = Omit<LsaState, 'vocabulary' | 'idf'> & { version: number; vocabulary?: unknown; idf?: unknown };

/** Writes the fitted state under `dir`: JSON, the term table, the weights and a Float32 projection (vocabulary × dimension). */
export function saveLsa(model: LsaModel, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const { vocabulary, idf, ...scalars } = model.state;
  writeFileSync(path.join(dir, STATE_FILE), JSON.stringify({ version: STATE_VERSION, ...scalars } satisfies LsaStateFile));
  writeFileSync(path.join(dir, TERMS_FILE), vocabulary.bytes);
  writeFileSync(path.join(dir, WEIGHTS_FILE), new Uint8Array(idf.buffer, idf.byteOffset, idf.byteLength));
  const all = model.projection.all();
  writeFileSync(path.join(dir, PROJECTION_FILE), Buffer.from(all.buffer, all.byteOffset, all.byteLength));
}

/** Loads a fitted model from `dir`; NotReadyError when missing, corrupt, or built with another analyzer. */
export function loadLsa(dir: string, analyzer: Analyzer): LsaModel {
  const stateFile = path.join(dir, STATE_FILE);
  const projectionFile = path.join(dir, PROJECTION_FILE);
  const rebuild = '; run `exam-copilot ingest --force`';
  if (!existsSync(stateFile) || !existsSync(projectionFile)) throw new NotReadyError(`no fitted LSA embedder in ${dir}${rebuild}`);
  let file: LsaStateFile;
  try {
    file = JSON.parse(readFileSync(stateFile, 'utf8')) as LsaStateFile;
  } catch {
    throw new NotReadyError(`${stateFile} is unreadable${rebuild}`);
  }
  if ((file.version !== STATE_VERSION && file.version !== JSON_VOCABULARY_VERSION) || !Array.isArray(file.ngrams)) {
    throw new NotReadyError(`${stateFile} was written by another version${rebuild}`);
  }
  if (file.analyzer !== analyzer.fingerprint) {
    throw new NotReadyError(
      `the LSA embedder in ${dir} was fitted with analyzer ${file.analyzer}, the current user dictionary gives ${analyzer.fingerprint}${rebuild}`,
    );
  }
  const { vocabulary, idf } = file.version === STATE_VERSION ? readTermsAndWeights(dir) : termsFromJson(file, stateFile);
  if (idf.length !== vocabulary.size) throw new NotReadyError(`${dir}: ${idf.length} term weights for ${vocabulary.size} terms${rebuild}`);
  if (statSync(projectionFile).size !== vocabulary.size * file.dimension * 4) {
    throw new NotReadyError(`${projectionFile} has the wrong size${rebuild}`);
  }
  const { version: _version, vocabulary: _v, idf: _i, ...scalars } = file;
  return new LsaModel(analyzer, { ...scalars, vocabulary, idf }, projectionFromFile(projectionFile, file.dimension));
}

/** The vocabulary and weights of a format 3 fit, from their own files. */
function readTermsAndWeights(dir: string): { vocabulary: TermTable; idf: Float64Array } {
  const termsFile = path.join(dir, TERMS_FILE);
  const weightsFile = path.join(dir, WEIGHTS_FILE);
  let vocabulary: TermTable;
  let weights: Buffer;
  try {
    vocabulary = readTermTable(readFileSync(termsFile));
    weights = readFileSync(weightsFile);
  } catch (error) {
    throw new NotReadyError(`${dir}: the LSA vocabulary is unreadable (${(error as Error).message}); run \`exam-copilot ingest --force\``);
  }
  if (weights.length % 8 !== 0) throw new NotReadyError(`${weightsFile} has the wrong size; run \`exam-copilot ingest --force\``);
  // A copy: a small file's Buffer may sit at an offset a Float64Array view cannot use.
  return { vocabulary, idf: new Float64Array(weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.length)) };
}

/** The vocabulary and weights of a format 2 fit, from the JSON arrays. */
function termsFromJson(file: LsaStateFile, stateFile: string): { vocabulary: TermTable; idf: Float64Array } {
  const { vocabulary, idf } = file;
  const valid =
    Array.isArray(vocabulary) &&
    vocabulary.every((t) => typeof t === 'string') &&
    Array.isArray(idf) &&
    idf.every((w) => typeof w === 'number');
  if (!valid) throw new NotReadyError(`${stateFile} was written by another version; run \`exam-copilot ingest --force\``);
  try {
    return { vocabulary: buildTermTable(vocabulary), idf: Float64Array.from(idf) };
  } catch (error) {
    throw new NotReadyError(`${stateFile} is unreadable (${(error as Error).message}); run \`exam-copilot ingest --force\``);
  }
}

/** A projection held in memory (a fit's). */
export function projectionInMemory(matrix: Float32Array, dimension: number): Projection {
  return {
    rows: (indices) => indices.map((j) => matrix.subarray(j * dimension, (j + 1) * dimension)),
    all: () => matrix,
  };
}

/**
 * Rows read from the saved file when a text first needs them: a query touches a few hundred of the matrix's
 * tens of thousands of rows, and reading all of it (13 MB for a 252-page book) was a large part of answering
 * one question. The file stays open until `close`, so a model keeps reading the matrix it was loaded with even
 * when an ingest swaps in a new index meanwhile (as eval, which scores one index, relies on).
 */
function projectionFromFile(file: string, dimension: number): Projection & { close(): void } {
  const rowBytes = dimension * 4;
  const cache = new Map<number, Float32Array>();
  let fd: number | null = openSync(file, 'r');
  const handle = (): number => {
    if (fd === null) throw new Error(`${file}: read after the embedder was closed`);
    return fd;
  };
  return {
    rows(indices) {
      return indices.map((j) => {
        let row = cache.get(j);
        if (!row) {
          row = new Float32Array(dimension);
          const read = readSync(handle(), new Uint8Array(row.buffer), 0, rowBytes, j * rowBytes);
          if (read !== rowBytes) throw new NotReadyError(`${file} is shorter than its vocabulary; run \`exam-copilot ingest --force\``);
          cache.set(j, row);
        }
        return row;
      });
    },
    all() {
      const size = fstatSync(handle()).size;
      const out = new Float32Array(size / 4);
      readSync(handle(), new Uint8Array(out.buffer), 0, size, 0);
      return out;
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** Reads only the corpus hash of a saved model (to decide whether a previous fit can be reused). */
export function savedLsaCorpusHash(dir: string): string | null {
  try {
    const state = JSON.parse(readFileSync(path.join(dir, STATE_FILE), 'utf8')) as Partial<LsaStateFile>;
    return typeof state.corpusHash === 'string' ? state.corpusHash : null;
  } catch {
    return null;
  }
}
