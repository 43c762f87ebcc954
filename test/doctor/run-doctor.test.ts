import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runDoctor, type DoctorCheck } from '../../src/doctor/run-doctor.js';
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
