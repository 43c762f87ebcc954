import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkKernelsFile, checkScanKernelsFile, runDoctor, type DoctorCheck } from '../../src/doctor/run-doctor.js';
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

  it("checks the vector scan's kernel too, warning (large indexes are then searched exactly) on a bad file", async () => {
    const fx = await buildFixtureIndex();
    try {
      const scan = check((await runDoctor({ root: fx.root, config: fx.config })).checks, 'scan');
      assert.equal(scan.status, 'ok');
      assert.match(scan.message, /scan-kernels\.wasm/u);
    } finally {
      fx.cleanup();
    }
    const missing = await checkScanKernelsFile(path.join(dir, 'absent-scan.wasm'));
    assert.equal(missing.status, 'warn');
    assert.match(missing.message, /absent-scan\.wasm: cannot read the vector scan kernel \(ENOENT\).*searched through their flat file/u);
    const empty = path.join(dir, 'empty-scan.wasm');
    writeFileSync(empty, Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    assert.match((await checkScanKernelsFile(empty)).message, /has no scanCodes/u);
  });
});
