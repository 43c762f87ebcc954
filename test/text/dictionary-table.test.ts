import assert from 'node:assert/strict';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { after, before, describe, it } from 'node:test';
import { projectPaths } from '../../src/paths.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import { createAnalyzer, readUserDictionary } from '../../src/text/analyzer.js';
import { defaultDictionaryFile, loadDictionaryTable } from '../../src/text/dictionary-cache.js';
import { PagedBytes } from '../../src/text/paged-bytes.js';
import { prepareDictionaryTable } from '../../src/text/prepare-dictionary-table.js';
import { buildDictionaryTable, readDictionaryTable, type BuiltDictionaryTable } from '../../src/text/dictionary-table.js';
import { testConfig } from '../retrieve/fixture-index.js';
import { canListOpenFiles, openFilesNamed } from '../helpers/open-files.js';
import { fixturesDir, makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';

/** Real text: the sample validation questions and the retrieval fixture's textbook passages. */
function realTexts(): string[] {
  const questions = readFileSync(path.join(repoRoot, 'rawdoc', 'validation.csv'), 'utf8').split('\n');
  const chunks = readFileSync(path.join(fixturesDir, 'retrieve', 'chunks.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  return [...questions, ...chunks].filter((t) => t.trim() !== '');
}

describe('dictionary table (jieba dictionary on demand)', () => {
  let table: BuiltDictionaryTable;
  const dictText = readFileSync(defaultDictionaryFile(), 'utf8');
  const dictWords = new Map<string, number>();
  before(() => {
    table = buildDictionaryTable(dictText);
    for (const line of dictText.split('\n')) {
      const [word, freq] = line.split(' ');
      if (word) dictWords.set(word, Number(freq));
    }
  });

  it('holds every word of jieba dictionary with its frequency, and the sum of all frequencies', () => {
    assert.equal(table.wordCount, dictWords.size);
    let total = 0;
    for (const f of dictWords.values()) total += f;
    assert.equal(table.totalFrequency, total);
    for (const word of ['基金', '托管人', '中华人民共和国', '的', 'ａ']) {
      const id = table.wordId(word);
      if (!dictWords.has(word)) {
        assert.equal(id, -1, word);
        continue;
      }
      assert.ok(id >= 0, word);
      assert.equal(table.word(id), word);
      assert.equal(table.frequency(id), dictWords.get(word));
    }
    // A prefix of a word that is not a word itself is not reported as one.
    assert.ok(!dictWords.has('中华人民共'));
    assert.equal(table.wordId('中华人民共'), -1);
  });

  it('finds exactly the dictionary words that occur in a text', () => {
    for (const text of realTexts().slice(0, 40)) {
      const found = new Set<string>();
      table.forEachWordIn(text, (id) => found.add(table.word(id)));
      const expected = new Set<string>();
      for (let i = 0; i < text.length; i++) {
        for (let j = i + 1; j <= Math.min(text.length, i + 16); j++) {
          if (dictWords.has(text.slice(i, j))) expected.add(text.slice(i, j));
        }
      }
      assert.deepEqual([...found].sort(), [...expected].sort(), text.slice(0, 40));
    }
  });

  it('cuts real text exactly as jieba with its whole dictionary, with and without user dictionaries', () => {
    const starter = readUserDictionary([
      path.join(repoRoot, 'dict', 'exam-terms.txt'),
      path.join(repoRoot, 'rawdoc', 'userdict.txt'),
    ]).lines;
    // Overrides of default words (a much lower and a much higher frequency) change cuts and the total; a word
    // repeated with two frequencies keeps the last; a line without a frequency counts 0.
    const overrides = [...starter, '基金 3 n', '托管 9000000 v', '份额持有人 50 n', '份额持有人 70000 n', '管理人员'];
    const texts = realTexts();
    for (const lines of [[], starter, overrides]) {
      const full = createAnalyzer(lines);
      const onDemand = createAnalyzer(lines, { table });
      assert.equal(onDemand.fingerprint, full.fingerprint);
      for (const text of texts) assert.deepEqual(onDemand.tokens(text), full.tokens(text), text.slice(0, 60));
    }
  });

  it('past its on-demand budget (a long session) it switches to the whole dictionary and cuts the same', () => {
    const texts = realTexts();
    const full = createAnalyzer([]);
    const onDemand = createAnalyzer([], { table });
    let seen = 0;
    for (let round = 0; seen < 250_000; round++) {
      for (const text of texts) {
        seen += text.length;
        assert.deepEqual(onDemand.tokens(text), full.tokens(text), `round ${round}: ${text.slice(0, 40)}`);
      }
    }
  });

  it('a user line jieba rejects fails the same way as with the whole dictionary', () => {
    assert.throws(() => createAnalyzer(['基金 lots n']));
    assert.throws(() => createAnalyzer(['基金 lots n'], { table }));
  });

  it('reads back what it serialised, and rejects truncated or foreign bytes', () => {
    const copy = readDictionaryTable(new Uint8Array(table.bytes));
    assert.equal(copy.wordCount, table.wordCount);
    assert.equal(copy.totalFrequency, table.totalFrequency);
    assert.equal(copy.word(copy.wordId('托管人')), '托管人');
    assert.throws(() => readDictionaryTable(table.bytes.subarray(0, table.bytes.byteLength - 8)), /truncated/);
    assert.throws(() => readDictionaryTable(new Uint8Array(64)), /not a dictionary table/);
  });

  it('read from a file page by page, finds the same words, frequencies and tags as in memory', () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'table.bin');
      // Four bytes ahead of the table, as the cache file's identity puts it at an offset.
      writeFileSync(file, Buffer.concat([Buffer.from([1, 2, 3, 4]), table.bytes]));
      const paged = readDictionaryTable(PagedBytes.ofFile(openSync(file, 'r'), 4, table.bytes.byteLength));
      assert.equal(paged.wordCount, table.wordCount);
      assert.equal(paged.totalFrequency, table.totalFrequency);
      // Enough text to pass from single pages to reading the rest whole, checked on both sides of the switch.
      for (const text of realTexts()) {
        const inMemory: string[] = [];
        table.forEachWordIn(text, (id) => inMemory.push(`${table.word(id)} ${table.frequency(id)} ${table.tag(id)}`));
        const fromFile: string[] = [];
        paged.forEachWordIn(text, (id) => fromFile.push(`${paged.word(id)} ${paged.frequency(id)} ${paged.tag(id)}`));
        assert.deepEqual(fromFile, inMemory, text);
      }
      assert.equal(paged.wordId('中华人民共'), -1);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('dictionary table cache', () => {
  let tmp: TempRoot;
  let cacheFile: string;
  before(() => {
    tmp = makeTempRoot();
    cacheFile = path.join(tmp.root, 'cache', 'jieba-dictionary.bin');
  });
  after(() => tmp.cleanup());

  it('builds and writes the table once, then reads it back', () => {
    const first = loadDictionaryTable(cacheFile, { write: true });
    assert.ok(first.table);
    assert.deepEqual(first.warnings, []);
    const written = readFileSync(cacheFile);
    const second = loadDictionaryTable(cacheFile, { write: true });
    assert.ok(second.table);
    assert.deepEqual(second.warnings, []);
    assert.deepEqual(readFileSync(cacheFile), written, 'not rewritten');
    assert.equal(second.table.totalFrequency, first.table.totalFrequency);
    assert.deepEqual(
      readdirSync(path.dirname(cacheFile)).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
  });

  it('threads that build it at the same moment each get the table, and none closes a descriptor twice', async () => {
    // Eval's worker threads share a process id: on a root's first eval they all build the table at once.
    const fresh = path.join(tmp.root, 'threads', 'jieba-dictionary.bin');
    const module = pathToFileURL(path.join(repoRoot, 'dist', 'src', 'text', 'dictionary-cache.js')).href;
    const start = new Int32Array(new SharedArrayBuffer(4));
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const warnings = [];
      process.on('warning', (w) => warnings.push(w.message));
      import(workerData.module).then((m) => {
        Atomics.wait(workerData.start, 0, 0);
        const loaded = m.loadDictionaryTable(workerData.file, { write: true });
        // A process warning is emitted on a later tick: reply after it.
        setTimeout(() => parentPort.postMessage({ table: loaded.table !== null, warnings: [...warnings, ...loaded.warnings.map((w) => w.message)] }), 100);
      });`;
    const threads = Array.from({ length: 4 }, () => new Worker(code, { eval: true, workerData: { module, file: fresh, start } }));
    const replies = threads.map(
      (t) => new Promise<{ table: boolean; warnings: string[] }>((resolve, reject) => t.once('message', resolve).once('error', reject)),
    );
    // Let every thread reach the barrier, then release them together.
    await new Promise((resolve) => setTimeout(resolve, 500));
    Atomics.store(start, 0, 1);
    Atomics.notify(start, 0);
    const got = await Promise.all(replies);
    await Promise.all(threads.map((t) => t.terminate()));
    assert.deepEqual(
      got,
      Array.from({ length: 4 }, () => ({ table: true, warnings: [] })),
    );
    assert.deepEqual(readdirSync(path.dirname(fresh)), ['jieba-dictionary.bin'], 'one cache file, no temporary file left');
    const again = loadDictionaryTable(fresh, { write: false });
    assert.ok(again.table);
    assert.deepEqual(again.warnings, []);
  });

  it('a truncated or garbled cache is rebuilt with a warning naming it, and cuts stay the same', () => {
    const good = readFileSync(cacheFile);
    const reference = createAnalyzer();
    for (const bad of [good.subarray(0, good.length - 1000), Buffer.from('not a table at all')]) {
      writeFileSync(cacheFile, bad);
      const loaded = loadDictionaryTable(cacheFile, { write: true });
      assert.ok(loaded.table);
      assert.equal(loaded.warnings.length, 1);
      assert.equal(loaded.warnings[0]?.where, cacheFile);
      assert.match(loaded.warnings[0]?.message ?? '', /unreadable .*rebuilt/);
      assert.deepEqual(readFileSync(cacheFile), good);
      const analyzer = createAnalyzer([], { table: loaded.table });
      assert.deepEqual(analyzer.tokens('基金托管人应当安全保管基金财产'), reference.tokens('基金托管人应当安全保管基金财产'));
    }
  });

  it('a cache built from another dictionary version is replaced without a warning', () => {
    const good = readFileSync(cacheFile);
    const stale = Buffer.from(good);
    // The identity ends with the jieba package version; change its last character.
    const idLength = stale.readUInt32LE(0);
    stale[4 + idLength - 1] = 'x'.charCodeAt(0);
    writeFileSync(cacheFile, stale);
    const loaded = loadDictionaryTable(cacheFile, { write: true });
    assert.ok(loaded.table);
    assert.deepEqual(loaded.warnings, []);
    assert.deepEqual(readFileSync(cacheFile), good);
  });

  it('without leave to write, a missing cache means the whole dictionary (no table) and no file', () => {
    const elsewhere = path.join(tmp.root, 'other', 'jieba-dictionary.bin');
    const loaded = loadDictionaryTable(elsewhere, { write: false });
    assert.equal(loaded.table, null);
    assert.ok(!existsSync(path.dirname(elsewhere)));
  });

  it('analyzerFromConfig writes the cache only into a root ingest has prepared', () => {
    const bare = makeTempRoot();
    try {
      const config = testConfig(bare.root);
      analyzerFromConfig(bare.root, config);
      assert.deepEqual(readdirSync(bare.root), [], 'nothing created in a folder that is not a project yet');
      const paths = projectPaths(bare.root);
      mkdirSync(paths.state);
      const built = analyzerFromConfig(bare.root, config);
      assert.ok(existsSync(paths.segmenterCache));
      assert.deepEqual(built.warnings, []);
      const plain = createAnalyzer(readUserDictionary([paths.starterDictionary]).lines);
      const text = '基金管理人应当按照基金合同的约定，向基金份额持有人分配收益';
      assert.deepEqual(built.analyzer.tokens(text), plain.tokens(text));
    } finally {
      bare.cleanup();
    }
  });
});

describe('the table ingest prepares for later commands', () => {
  it('is built on a worker thread, left alone while current, rebuilt with a warning when damaged, and only checked when current', async () => {
    const tmp = makeTempRoot();
    try {
      const cacheFile = path.join(tmp.root, 'cache', 'jieba-dictionary.bin');
      assert.deepEqual(await prepareDictionaryTable(cacheFile), []);
      const built = readFileSync(cacheFile);
      const direct = loadDictionaryTable(path.join(tmp.root, 'direct', 'jieba-dictionary.bin'), { write: true });
      assert.ok(direct.table);
      assert.deepEqual(built, readFileSync(path.join(tmp.root, 'direct', 'jieba-dictionary.bin')));
      const before = statSync(cacheFile).mtimeMs;
      assert.deepEqual(await prepareDictionaryTable(cacheFile), []);
      assert.equal(statSync(cacheFile).mtimeMs, before, 'a current table is not written again');
      writeFileSync(cacheFile, 'not a table at all');
      const warnings = await prepareDictionaryTable(cacheFile);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]?.message ?? '', /segmenter dictionary cache unreadable .*rebuilt it/);
      assert.deepEqual(readFileSync(cacheFile), built);
      if (canListOpenFiles) {
        // What the thread does with a current table: check it and close it again, where a reader keeps it open.
        const released = loadDictionaryTable(cacheFile, { write: true, release: true });
        assert.equal(released.table, null);
        assert.deepEqual(openFilesNamed('jieba-dictionary.bin', tmp.root), []);
        const kept = loadDictionaryTable(cacheFile, { write: true });
        assert.ok(kept.table);
        assert.equal(openFilesNamed('jieba-dictionary.bin', tmp.root).length, 1);
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('is left to that thread: the whole-corpus analyzer neither reads nor writes it', () => {
    const tmp = makeTempRoot();
    try {
      const paths = projectPaths(tmp.root);
      mkdirSync(paths.state);
      const config = testConfig(tmp.root);
      const whole = analyzerFromConfig(tmp.root, config, { wholeCorpus: true });
      assert.equal(existsSync(paths.segmenterCache), false);
      const text = '基金管理人应当按照基金合同的约定，向基金份额持有人分配收益';
      assert.deepEqual(whole.analyzer.tokens(text), analyzerFromConfig(tmp.root, config).analyzer.tokens(text));
    } finally {
      tmp.cleanup();
    }
  });
});
