import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultRunDir } from '../../src/evaluate/run-files.js';
import { parseXml } from './xml-check.js';
import { goldenDir, makeTempRoot, repoRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { pauseEnv } from '../helpers/pause-at.js';
import { sampleRoot } from '../helpers/sample-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
// Offline, no colour, no spinner, and no LLM from the developer's environment.
const env = offlineEnv({ CI: 'true' });
const tmp = await sampleRoot();
const root = tmp.root;
const dataset = path.join(root, 'rawdoc', 'validation.csv');

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, '--root', root, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface JsonReport {
  total: number;
  row_issues: object;
  modes: {
    mode: string;
    accuracy: number;
    ci95: number[];
    correct: number;
    incorrect: number;
    abstained: number;
    evidence_hit_rate: number | null;
    by_type: unknown;
    brier: number;
    ece: number;
  }[];
  comparisons: unknown[];
}
interface Line {
  id: string;
  predicted: string;
  correct: boolean;
  confidence: number;
  fingerprint: string;
}

const readJson = (file: string): JsonReport => JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
/** Everything in a report except timings and paths, which differ between two runs of the same answers. */
const stable = (r: JsonReport): unknown => ({
  total: r.total,
  comparisons: r.comparisons,
  modes: r.modes.map((m) => ({
    mode: m.mode,
    accuracy: m.accuracy,
    ci95: m.ci95,
    correct: m.correct,
    incorrect: m.incorrect,
    abstained: m.abstained,
    hit: m.evidence_hit_rate,
    by_type: m.by_type,
    brier: m.brier,
    ece: m.ece,
  })),
});

after(() => tmp.cleanup());

void describe('eval CLI', () => {
  let full: JsonReport;

  void it('scores the sample validation set in every offline mode and writes valid JUnit', () => {
    const out = path.join(root, 'full');
    const r = cli(['eval', dataset, '--report-json', path.join(out, 'report.json'), '--junit', path.join(out, 'junit.xml')]);
    assert.equal(r.status, 0, r.stderr);
    full = readJson(path.join(out, 'report.json'));
    assert.deepEqual(
      full.modes.map((m) => m.mode),
      ['keyword', 'vector', 'hybrid'],
    );
    assert.match(r.stderr, /baseline not run: .*no LLM is configured/);
    // The terminal says what guessing would score: every sample question has four options and one answer.
    assert.match(r.stdout, /^chance level 25\.0%: the mean over the questions of 1\/\(number of options\)$/m);
    // Exact counts, not "better than chance": any change in what the offline answerer gets right shows up here.
    const golden = JSON.parse(readFileSync(path.join(goldenDir, 'sample-eval.json'), 'utf8')) as {
      total: number;
      row_issues: object;
      modes: object[];
    };
    assert.deepEqual(
      {
        total: full.total,
        row_issues: full.row_issues,
        modes: full.modes.map((m) => ({ mode: m.mode, correct: m.correct, incorrect: m.incorrect, abstained: m.abstained })),
      },
      { total: golden.total, row_issues: golden.row_issues, modes: golden.modes },
    );
    const junit = parseXml(readFileSync(path.join(out, 'junit.xml'), 'utf8'));
    const suites = junit.children.filter((c) => c.name === 'testsuite');
    assert.equal(suites.length, 3);
    for (const [i, s] of suites.entries()) {
      const m = full.modes[i];
      assert.equal(s.children.filter((c) => c.name === 'testcase').length, full.total);
      // Wrong answers are listed as skipped test cases, never as failures: without a gate nothing fails.
      assert.equal(
        s.children.filter((c) => c.children.some((f) => f.name === 'skipped')).length,
        (m?.incorrect ?? 0) + (m?.abstained ?? 0),
      );
      assert.equal(s.children.filter((c) => c.children.some((f) => f.name === 'failure')).length, 0);
    }
    assert.equal(junit.attrs.failures, '0');
    // Run files (and their lock) are the tool's state, under .exam-copilot/runs/, one line per question; the report
    // folder, which serve lists for students and teachers, holds only what a person opens.
    const runDir = defaultRunDir(root, path.join(out, 'report.json'));
    assert.ok(runDir.startsWith(path.join(root, '.exam-copilot', 'runs') + path.sep), runDir);
    assert.equal(readLines(path.join(runDir, 'validation.hybrid.jsonl')).length, full.total);
    assert.deepEqual(readdirSync(out).sort(), ['junit.xml', 'report.json']);
  });

  void it('resumes a killed run without losing or repeating a row, ending with the same report', async () => {
    const out = path.join(root, 'resume');
    const runFile = path.join(defaultRunDir(root, path.join(out, 'report.json')), 'validation.keyword.jsonl');
    const args = [bin, '--root', root, 'eval', dataset, '--report-json', path.join(out, 'report.json')];
    // The run pauses once 7 rows are written (test/helpers/pause-at.ts), so the kill lands mid-run whatever the machine's speed.
    const marker = path.join(root, 'eval-paused');
    const child = spawn(process.execPath, args, { env: { ...env, ...pauseEnv('eval', '7', marker) }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 1200 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(marker), 'the run reached its pause point');
    child.kill('SIGKILL');
    await exited;
    const killedAt = readLines(runFile).length;
    assert.ok(killedAt > 0 && killedAt < full.total, `killed after ${killedAt} of ${full.total} rows`);
    assert.equal(existsSync(path.join(out, 'report.json')), false, 'a killed run writes no report');
    const before = readLines(runFile);

    const r = cli(['eval', dataset, '--resume', '--report-json', path.join(out, 'report.json')]);
    assert.equal(r.status, 0, r.stderr);
    const lines = readLines(runFile);
    assert.equal(new Set(lines.map((l) => l.id)).size, lines.length, 'no row twice');
    assert.equal(lines.length, full.total, 'no row lost');
    // The rows finished before the kill were reused, not asked again.
    assert.deepEqual(lines.slice(0, before.length), before);
    assert.match(r.stderr, new RegExp(`keyword: ${before.length} rows reused`));
    assert.deepEqual(stable(readJson(path.join(out, 'report.json'))), stable(full));
  });

  void it('exit codes: 0 passed, 4 gate failed (--fail-under, --compare/--max-drop), 1 or 5 could not run', () => {
    const out = path.join(root, 'gate');
    // The sample holds a question every mode answers wrong (S071, a Sharpe ratio to compute from a table), so a 99%
    // floor fails.
    const gateArgs = ['eval', dataset, '--modes', 'keyword,hybrid'];
    const ok = cli([...gateArgs, '--fail-under', '0.05', '--report-json', path.join(out, 'prev.json')]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /accuracy gate passed/);

    const under = cli([...gateArgs, '--fail-under', 'hybrid=0.99', '--run-dir', out]);
    assert.equal(under.status, 4);
    assert.match(under.stdout, /gate failed: hybrid: accuracy .* is below --fail-under 99\.0%/);

    const prev = readJson(path.join(out, 'prev.json'));
    for (const m of prev.modes) m.accuracy = Math.min(1, m.accuracy + 0.02);
    writeFileSync(path.join(out, 'better.json'), JSON.stringify(prev));
    const drop = cli([...gateArgs, '--compare', path.join(out, 'better.json'), '--max-drop', '1', '--run-dir', out]);
    assert.equal(drop.status, 4);
    assert.match(drop.stdout, /keyword: accuracy fell 2\.0 points/);
    assert.equal(cli([...gateArgs, '--compare', path.join(out, 'better.json'), '--max-drop', '5', '--run-dir', out]).status, 0);

    // JUnit: the gate's checks are the test cases that fail, exactly when the gate does.
    const failures = (file: string): string[] =>
      parseXml(readFileSync(file, 'utf8'))
        .children.flatMap((suite) => suite.children)
        .filter((c) => c.children.some((f) => f.name === 'failure'))
        .map((c) => c.attrs.name ?? '');
    const passedJunit = path.join(out, 'passed.xml');
    assert.equal(cli([...gateArgs, '--fail-under', '0.05', '--run-dir', out, '--junit', passedJunit]).status, 0);
    assert.deepEqual(failures(passedJunit), []);
    const failedJunit = path.join(out, 'failed.xml');
    assert.equal(cli([...gateArgs, '--fail-under', 'hybrid=0.99', '--run-dir', out, '--junit', failedJunit]).status, 4);
    assert.deepEqual(failures(failedJunit), ['hybrid accuracy ≥ 99.0%']);

    // A --compare file not there yet (a CI job's first run) is a warning: the run goes on and writes its reports.
    const first = path.join(out, 'first', 'eval.json');
    const firstRun = cli([...gateArgs, '--compare', first, '--report-json', first, '--fail-under', '0.05']);
    assert.equal(firstRun.status, 0, firstRun.stderr);
    assert.match(
      firstRun.stderr,
      /--compare .*eval\.json: no previous report there yet \(first run\?\); accuracy is not compared this time \(this run writes it\)/,
    );
    assert.ok(existsSync(first));
    const strictMissing = cli([...gateArgs, '--compare', path.join(out, 'none.json'), '--strict-compare']);
    assert.equal(strictMissing.status, 1);
    assert.match(strictMissing.stderr, /none\.json: cannot read the previous report for --compare \(no such file\)/);
    // Only the modes that ran in both are compared; the others are named. --strict-compare fails on them.
    const fewer = cli(['eval', dataset, '--limit', '12', '--modes', 'hybrid', '--compare', path.join(out, 'prev.json'), '--run-dir', out]);
    assert.equal(fewer.status, 0, fewer.stderr);
    assert.match(fewer.stderr, /keyword: in the previous report \(.*\) but did not run now; not compared/);
    assert.match(fewer.stdout, /accuracy gate passed/);
    const strict = cli([
      'eval',
      dataset,
      '--limit',
      '12',
      '--modes',
      'hybrid',
      '--compare',
      path.join(out, 'prev.json'),
      '--strict-compare',
      '--run-dir',
      out,
    ]);
    assert.equal(strict.status, 4);
    assert.match(strict.stdout, /gate failed: keyword: in the previous report .* but did not run now/);

    const missing = cli(['eval', path.join(root, 'nope.csv')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.csv: cannot read the question set \(no such file\); check the path/);
    assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
    const badCompare = cli([...gateArgs, '--compare', path.join(root, 'rawdoc', 'validation.csv')]);
    assert.equal(badCompare.status, 1);
    assert.match(badCompare.stderr, /not valid|cannot read the previous report/);

    const empty = makeTempRoot();
    try {
      const r = spawnSync(process.execPath, [bin, '--root', empty.root, 'eval', dataset], { env, encoding: 'utf8' });
      assert.equal(r.status, 5);
      assert.match(r.stderr, /no index at .*; run `exam-copilot ingest`/);
    } finally {
      empty.cleanup();
    }
    assert.equal(cli(['eval', dataset, '--modes', 'keyword,bogus']).status, 2);
  });

  void it('a read-only root: eval and answer end in one line naming the folder', (t) => {
    // Tests run as root, which write permissions do not stop: the root is mounted read-only in a mount namespace of
    // the command's own (unshare -m), so nothing outside it sees the mount. Without one, permissions do the same.
    const asRoot = process.getuid?.() === 0;
    if (asRoot && spawnSync('unshare', ['-m', 'mount', '--bind', '-o', 'ro', root, root]).status !== 0) {
      t.skip('running as root without a mount namespace (unshare -m), so no folder can be made read-only');
      return;
    }
    const readOnly = (args: string[]): { status: number | null; stderr: string } => {
      const command = [process.execPath, bin, '--root', root, ...args];
      const r = asRoot
        ? spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind -o ro "$0" "$0" && exec "$@"', root, ...command], { env, encoding: 'utf8' })
        : (() => {
            chmodSync(root, 0o555);
            chmodSync(path.join(root, '.exam-copilot'), 0o555);
            try {
              return spawnSync(command[0] ?? '', command.slice(1), { env, encoding: 'utf8' });
            } finally {
              chmodSync(root, 0o755);
              chmodSync(path.join(root, '.exam-copilot'), 0o755);
            }
          })();
      return { status: r.status, stderr: r.stderr };
    };
    for (const args of [
      ['eval', dataset, '--limit', '3', '--modes', 'keyword'],
      ['eval', dataset, '--limit', '3', '--modes', 'keyword', '--report-json', path.join(root, 'ro', 'report.json')],
      ['answer', dataset],
    ]) {
      const r = readOnly(args);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(
        r.stderr,
        /^exam-copilot: cannot write the (run files in .*\.exam-copilot\/runs\S*|answered copy \S+) \((the file system is read-only|permission denied)\); /,
      );
    }
    // A sheet that cannot be written is said before any question is asked.
    const blocked = cli(['answer', dataset, '-o', path.join(dataset, 'out.csv')]);
    assert.equal(blocked.status, 1, blocked.stderr);
    assert.match(
      blocked.stderr,
      /^exam-copilot: cannot write the answered copy .*out\.csv \(.*validation\.csv is a file, not a folder\); pass -o/,
    );
  });
});
