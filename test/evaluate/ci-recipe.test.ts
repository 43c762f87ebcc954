import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { chatMessages, chatReply, startFakeOpenAiServer, type RecordedRequest } from '../helpers/fake-openai-server.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { parseXml } from './xml-check.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const recipe = readFileSync(path.join(repoRoot, 'docs', 'ci.md'), 'utf8');
// Offline, no colour, no spinner, and no LLM from the developer's environment.
const env = offlineEnv({ CI: 'true' });

/** The YAML blocks of a Markdown page. */
function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/**
 * The commands of a workflow's `run:` steps, in order: `run: cmd`, `run: >` (the indented lines folded into one line)
 * and `run: |` (one command per line).
 */
function runCommands(yaml: string): string[] {
  const lines = yaml.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*(?:- )?run: (.*)$/.exec(lines[i] ?? '');
    if (!m) continue;
    const value = (m[1] ?? '').trim();
    if (value !== '>' && value !== '|') {
      out.push(value);
      continue;
    }
    // The scalar's lines are those indented deeper than the `run:` key (blank lines included).
    const keyColumn = (lines[i] ?? '').indexOf('run:');
    const body: string[] = [];
    while (i + 1 < lines.length && ((lines[i + 1] ?? '').trim() === '' || (lines[i + 1] ?? '').search(/\S/) > keyColumn)) {
      body.push((lines[++i] ?? '').trim());
    }
    if (value === '>') out.push(body.filter((l) => l !== '').join(' '));
    else out.push(...body.filter((l) => l !== ''));
  }
  return out;
}

/** A step's `path:` under the action `uses`, as written in the workflow. */
function actionPaths(yaml: string, uses: string): string[] {
  const out: string[] = [];
  const lines = yaml.split('\n');
  lines.forEach((line, i) => {
    if (!line.includes(`uses: ${uses}`)) return;
    for (let j = i + 1; j < lines.length && !/^\s*- /.test(lines[j] ?? ''); j++) {
      const p = /path: ([^\s,}]+)/.exec(lines[j] ?? '');
      if (p?.[1]) out.push(p[1]);
    }
  });
  return out;
}

/** A recipe command as an argument list for the built CLI; the recipe keeps to plain words so this split is exact. */
function cliArgs(command: string): string[] {
  assert.doesNotMatch(command, /["'`$\\|;&<>]/, `keep docs/ci.md's exam-copilot commands to plain words: ${command}`);
  const words = command.split(/\s+/).filter((w) => w !== '');
  assert.deepEqual(words.slice(0, 2), ['npx', 'exam-copilot'], command);
  return words.slice(2);
}

/** The `NAME: value` lines of the `env:` mapping of a job. */
function jobEnv(yaml: string, job: string): Record<string, string> {
  const at = yaml.search(new RegExp(`^  ${job}:$`, 'm'));
  const env = /\n {4}env:\n((?: {6}\S.*\n)+)/.exec(yaml.slice(at));
  return Object.fromEntries(
    (env?.[1] ?? '')
      .trim()
      .split('\n')
      .map((l) => /^\s*([A-Z_]+): (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

/** Runs the CLI without blocking this thread (the fake LLM server answers from it). */
function cliAsync(args: string[], cwd: string, childEnv: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: childEnv });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (status) => resolve({ status, output }));
  });
}

const tmp = makeTempRoot({ sample: true });
after(() => tmp.cleanup());

void describe("docs/ci.md's recipe, run as written", () => {
  const blocks = yamlBlocks(recipe);
  const offline = blocks.find((b) => /^name: accuracy$/m.test(b)) ?? '';
  const commands = runCommands(offline).filter((c) => c.startsWith('npx exam-copilot '));

  void it('has an offline workflow and an LLM one that skips without its secret', () => {
    assert.ok(offline, 'an offline workflow named accuracy');
    assert.doesNotMatch(offline, /secrets\./, 'the offline workflow needs no secret');
    assert.deepEqual(
      commands.map((c) => cliArgs(c)[0]),
      ['ingest', 'eval'],
    );
    const llm = blocks.find((b) => /^name: accuracy-llm$/m.test(b)) ?? '';
    // The job that needs the key runs only when the key is there (pull requests from forks get no secrets).
    assert.match(llm, /llm:\n\s+needs: llm-key\n\s+if: needs\.llm-key\.outputs\.present == 'true'/);
    assert.match(llm, /--answerer llm/);
    // Its report is kept apart from the offline one.
    const llmEval = runCommands(llm).find((c) => c.startsWith('npx exam-copilot eval')) ?? '';
    assert.doesNotMatch(llmEval, /reports\/offline/);
  });

  void it('runs offline in a scratch repository made from the sample: the first run writes the baseline, the second compares', () => {
    const evalArgs = cliArgs(commands.find((c) => c.startsWith('npx exam-copilot eval')) ?? '');
    const option = (name: string): string => evalArgs[evalArgs.indexOf(name) + 1] ?? '';
    // What the cache restores is what eval compares with, and the artifact holds what eval writes.
    assert.deepEqual(actionPaths(offline, 'actions/cache/restore@v4'), [option('--compare')]);
    assert.deepEqual(actionPaths(offline, 'actions/cache/save@v4'), [option('--report-json')]);
    const [artifact = ''] = actionPaths(offline, 'actions/upload-artifact@v4');
    for (const name of ['--report-json', '--junit', '--report-html', '--report-md'])
      assert.ok(path.resolve(tmp.root, option(name)).startsWith(path.resolve(tmp.root, artifact)), `${name} is in the artifact`);

    const runAll = (): string[] =>
      commands.map((command) => {
        const r = spawnSync(process.execPath, [bin, ...cliArgs(command)], { cwd: tmp.root, env, encoding: 'utf8', timeout: 300_000 });
        assert.equal(r.status, 0, `${command}\n${r.stdout}\n${r.stderr}`);
        return `${r.stdout}\n${r.stderr}`;
      });
    const junitFailures = (): string[] =>
      parseXml(readFileSync(path.join(tmp.root, option('--junit')), 'utf8'))
        .children.flatMap((suite) => suite.children)
        .filter((c) => c.children.some((f) => f.name === 'failure'))
        .map((c) => c.attrs.name ?? '');

    const first = runAll().join('\n');
    assert.match(first, /no previous report there yet \(first run\?\); accuracy is not compared this time/);
    for (const name of ['--report-json', '--junit', '--report-html', '--report-md'])
      assert.ok(existsSync(path.join(tmp.root, option(name))), `${name} written on the first run`);
    assert.deepEqual(junitFailures(), []);

    const second = runAll().join('\n');
    assert.doesNotMatch(second, /no previous report/);
    assert.match(second, /accuracy gate passed/);
    // The second run compared every mode with the first one's report, and CI's test view lists those checks, passed.
    const checks = parseXml(readFileSync(path.join(tmp.root, option('--junit')), 'utf8'))
      .children.find((s) => s.attrs.name === 'eval.gate')
      ?.children.map((c) => c.attrs.name);
    assert.equal(checks?.[0], 'hybrid accuracy ≥ 60.0%');
    assert.deepEqual(
      checks?.slice(1).map((c) => c?.replace(/\(was \d+\.\d%\)$/, '(was N%)')),
      ['keyword', 'vector', 'hybrid'].map((m) => `${m} accuracy drop ≤ 2 points (was N%)`),
    );
    assert.deepEqual(junitFailures(), []);
  });

  void it('the LLM workflow, its key given, runs against an OpenAI-compatible endpoint, twice', async () => {
    const llm = blocks.find((b) => /^name: accuracy-llm$/m.test(b)) ?? '';
    const jobEnvironment = jobEnv(llm, 'llm');
    assert.deepEqual(Object.keys(jobEnvironment).sort(), [
      'EXAM_COPILOT_LLM_API_KEY',
      'EXAM_COPILOT_LLM_BASE_URL',
      'EXAM_COPILOT_LLM_MODEL',
    ]);
    assert.equal(jobEnvironment.EXAM_COPILOT_LLM_API_KEY, '${{ secrets.LLM_API_KEY }}');
    const llmCommands = runCommands(llm).filter((c) => c.startsWith('npx exam-copilot '));
    // The scripted "model" knows the answers: what is checked is that the commands run and gate, not the model.
    const rows = parse<Record<string, string>>(readFileSync(path.join(repoRoot, 'rawdoc', 'validation.csv'), 'utf8'), { columns: true });
    const server = await startFakeOpenAiServer({
      handler: (request: RecordedRequest) => {
        const text = chatMessages(request)
          .map((m) => m.content)
          .join('\n');
        if (text.includes('You rank textbook passages')) return chatReply('[1] > [2] > [3]');
        // The prompt carries the stem as parsed (blanks normalised), so a row is found by the start of its stem and its options.
        const row = rows.find(
          (r) => text.includes((r.question ?? '').slice(0, 12)) && ['A', 'B', 'C', 'D'].every((l) => text.includes(r[l] ?? '')),
        );
        const cites = /<evidence-[0-9a-f]{12}>/.test(text) ? [1] : [];
        return chatReply(
          JSON.stringify({ answer: row?.answer ?? 'A', confidence: 0.8, evidence_ids: cites, status: 'answered', explanation: '' }),
        );
      },
    });
    const scratch = makeTempRoot({ sample: true });
    try {
      const childEnv = {
        ...env,
        ...jobEnvironment,
        EXAM_COPILOT_LLM_BASE_URL: server.baseURL,
        EXAM_COPILOT_LLM_API_KEY: 'sk-recipe-test',
      };
      const outputs: string[] = [];
      for (let run = 0; run < 2; run++) {
        for (const command of llmCommands) {
          const r = await cliAsync(cliArgs(command), scratch.root, childEnv);
          assert.equal(r.status, 0, `${command}\n${r.output}`);
          outputs.push(r.output);
        }
      }
      const all = outputs.join('\n');
      assert.match(all, /no previous report there yet/);
      const last = outputs[outputs.length - 1] ?? '';
      assert.doesNotMatch(last, /no previous report/);
      assert.match(last, /accuracy gate passed/);
      assert.match(last, /^baseline\s+llm\s/m);
      assert.match(last, /^hybrid\s+llm\s/m);
    } finally {
      await server.close();
      scratch.cleanup();
    }
  });
});
