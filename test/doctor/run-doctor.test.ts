import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  checkKernelsFile,
  checkPostingsKernelsFile,
  checkScanKernelsFile,
  runDoctor,
  type DoctorCheck,
} from '../../src/doctor/run-doctor.js';
import { VECTOR_FILES } from '../../src/indexing/vector-meta.js';
import { projectPaths } from '../../src/paths.js';
import { openRetriever } from '../../src/retrieve/open-retriever.js';
import { NotReadyError } from '../../src/errors.js';
import { buildFixtureIndex, testConfig, type FixtureIndex } from '../retrieve/fixture-index.js';

function check(checks: readonly DoctorCheck[], name: string): DoctorCheck {
  const found = checks.find((c) => c.name === name);
  assert.ok(found, `doctor has a ${name} check`);
  return found;
}

describe('doctor uses the same index check as search', () => {
  let fx: FixtureIndex;
  before(async () => {
    fx = await buildFixtureIndex();
  });
  after(() => fx.cleanup());

  it('says ok when the index matches the configuration', async () => {
    const report = await runDoctor({ root: fx.root, config: fx.config });
    assert.equal(check(report.checks, 'embedder').status, 'ok');
  });

  it('fails, as search does, when the user dictionary changed since the index was built', async () => {
    const extra = path.join(fx.root, 'rawdoc', 'more-terms.txt');
    writeFileSync(extra, '托管费计提规则\n');
    const config = testConfig(fx.root, (c) => {
      c.userDict = ['rawdoc/userdict.txt', 'rawdoc/more-terms.txt'];
    });
    await assert.rejects(openRetriever({ root: fx.root, config }), NotReadyError);
    const embedder = check((await runDoctor({ root: fx.root, config })).checks, 'embedder');
    assert.equal(embedder.status, 'fail');
    assert.match(embedder.message, /analyzer|dictionary/);
    assert.match(embedder.fix ?? '', /ingest --force/);
  });

  it('fails, as search does, when the same embedder kind is configured with another dimension', async () => {
    const config = testConfig(fx.root, (c) => {
      c.embedder.dimension = 16;
    });
    await assert.rejects(openRetriever({ root: fx.root, config }), NotReadyError);
    const report = await runDoctor({ root: fx.root, config });
    assert.equal(check(report.checks, 'embedder').status, 'fail');
    assert.equal(report.ok, false);
  });

  it('warns, naming the file and the fix, when the 8-bit codes are cut short and the exact index is searched instead', async () => {
    const quantized = await buildFixtureIndex((c) => {
      c.vector.quantizeAbove = 0;
      c.vector.backend = 'auto';
    });
    try {
      const codes = path.join(projectPaths(quantized.root).faissDir, VECTOR_FILES.quantized);
      assert.equal(check((await runDoctor({ root: quantized.root, config: quantized.config })).checks, 'embedder').status, 'ok');
      writeFileSync(codes, readFileSync(codes).subarray(0, 200));
      const embedder = check((await runDoctor({ root: quantized.root, config: quantized.config })).checks, 'embedder');
      assert.equal(embedder.status, 'warn');
      assert.ok(embedder.message.includes(`${codes}: the 8-bit codes are unusable`), embedder.message);
      assert.match(embedder.fix ?? '', /ingest --force/);
    } finally {
      quantized.cleanup();
    }
  });
});

describe("doctor checks the LSA fit's WebAssembly kernels", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-kernels-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says ok for the shipped file, as part of every report', async () => {
    const fx = await buildFixtureIndex();
    try {
      const kernels = check((await runDoctor({ root: fx.root, config: fx.config })).checks, 'kernels');
      assert.equal(kernels.status, 'ok');
      assert.match(kernels.message, /dense-kernels\.wasm/u);
    } finally {
      fx.cleanup();
    }
  });

  it('fails on a missing, a damaged, or an incomplete file, naming it; only warns when LSA is not the embedder', async () => {
    const config = testConfig(dir);
    const missing = await checkKernelsFile(config, path.join(dir, 'absent.wasm'));
    assert.equal(missing.status, 'fail');
    assert.match(missing.message, /absent\.wasm: cannot read the LSA fit's kernels \(ENOENT\)/u);
    assert.match(missing.fix ?? '', /reinstall/u);

    const damaged = path.join(dir, 'damaged.wasm');
    writeFileSync(damaged, 'not WebAssembly');
    assert.match((await checkKernelsFile(config, damaged)).message, /damaged\.wasm: not a usable WebAssembly module/u);

    // A valid module with no exports: the header alone.
    const empty = path.join(dir, 'empty.wasm');
    writeFileSync(empty, Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    const incomplete = await checkKernelsFile(config, empty);
    assert.equal(incomplete.status, 'fail');
    assert.match(incomplete.message, /has no csrTimesDense/u);

    const openai = testConfig(dir, (c) => {
      c.embedder.kind = 'openai';
    });
    assert.equal((await checkKernelsFile(openai, damaged)).status, 'warn');
  });

  // The two kernels whose loss only slows searches down: each warns, naming its file and what runs instead.
  for (const kernel of [
    {
      check: checkScanKernelsFile,
      name: 'scan',
      file: 'scan-kernels.wasm',
      what: 'the vector scan kernel',
      instead: /searched through their flat file/u,
      first: 'scanCodes',
    },
    {
      check: checkPostingsKernelsFile,
      name: 'postings',
      file: 'postings-kernels.wasm',
      what: 'the keyword postings kernel',
      instead: /ranked by FTS5 instead/u,
      first: 'accumulate',
    },
  ]) {
    it(`checks ${kernel.what} too, warning (${kernel.instead.source}) on a bad file`, async () => {
      const fx = await buildFixtureIndex();
      try {
        const shipped = check((await runDoctor({ root: fx.root, config: fx.config })).checks, kernel.name);
        assert.equal(shipped.status, 'ok');
        assert.ok(shipped.message.includes(kernel.file), shipped.message);
      } finally {
        fx.cleanup();
      }
      const missing = await kernel.check(path.join(dir, `absent-${kernel.file}`));
      assert.equal(missing.status, 'warn');
      assert.ok(missing.message.includes(`absent-${kernel.file}: cannot read ${kernel.what} (ENOENT)`), missing.message);
      assert.match(missing.message, kernel.instead);
      // The fix is given once, as the check's fix, not also inside the message.
      assert.doesNotMatch(missing.message, /reinstall/u);
      assert.match(missing.fix ?? '', /reinstall exam-copilot/u);
      const empty = path.join(dir, `empty-${kernel.file}`);
      writeFileSync(empty, Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
      assert.match((await kernel.check(empty)).message, new RegExp(`has no ${kernel.first}`, 'u'));
    });
  }
});
