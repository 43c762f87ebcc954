#!/usr/bin/env node
// Packs exam-copilot with `npm pack`, installs the tarball into a scratch project as a user would (dependencies from
// the npm registry, nothing else downloaded), and runs the README's main job from another folder with --root:
// --version, doctor, ingest and ask on a copy of the sample textbook. Prints the installed size, so the default
// install (optional OCR and transformers left out) can be compared with a full one.
// Usage: node scripts/check-pack.mjs [--keep]
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const work = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-pack-'));
let failed = false;

function run(cmd, args, options = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  return { ...r, seconds };
}

function step(name, r, expect = 0) {
  const ok = r.status === expect;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (exit ${r.status}, ${r.seconds} s)`);
  if (!ok) {
    failed = true;
    console.log((r.stderr || r.stdout || '').split('\n').slice(-15).join('\n'));
  }
  return ok;
}

function sizeOf(dir) {
  let total = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      const s = statSync(p, { throwIfNoEntry: false });
      if (!s) continue;
      if (s.isDirectory()) walk(p);
      else total += s.size;
    }
  };
  walk(dir);
  return total;
}

try {
  const pack = run('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: repo });
  if (!step('npm pack', pack)) throw new Error('pack failed');
  const tarball = path.join(work, pack.stdout.trim().split('\n').pop());
  const app = path.join(work, 'app');
  mkdirSync(app);
  // The consumer approves the install scripts that must run: better-sqlite3's build and exam-copilot's FAISS step.
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'textbooks',
        private: true,
        allowScripts: {
          'better-sqlite3': true,
          'exam-copilot': true,
          'faiss-node': false,
          'onnxruntime-node': false,
          protobufjs: false,
          sharp: false,
        },
      },
      null,
      2,
    ),
  );
  const install = run('npm', ['install', '--no-audit', '--no-fund', tarball], {
    cwd: app,
    env: { ...process.env, npm_config_onnxruntime_node_install: 'skip' },
  });
  if (!step('npm install <tarball>', install)) throw new Error('install failed');
  const bin = path.join(app, 'node_modules', '.bin', 'exam-copilot');
  const books = path.join(work, 'my-textbooks');
  cpSync(path.join(repo, 'rawdoc'), path.join(books, 'rawdoc'), { recursive: true });
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-cwd-'));
  const env = { ...process.env, NO_COLOR: '1', EXAM_COPILOT_LLM_MODEL: '', OPENAI_MODEL: '' };
  step('exam-copilot --version', run(bin, ['--version'], { cwd: elsewhere, env }));
  const doctor = run(bin, ['--root', books, 'doctor'], { cwd: elsewhere, env });
  step('exam-copilot doctor (before ingest: warns, does not fail)', doctor);
  console.log(
    doctor.stdout
      .split('\n')
      .filter((l) => /ocr|transformers|onnx|faiss/i.test(l))
      .map((l) => `     ${l.trim()}`)
      .join('\n'),
  );
  step('exam-copilot ingest', run(bin, ['--root', books, '--quiet', 'ingest'], { cwd: elsewhere, env }));
  const ask = run(
    bin,
    ['--root', books, '--json', 'ask', '基金财产由（ ）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构'],
    { cwd: elsewhere, env },
  );
  if (step('exam-copilot ask', ask)) console.log(`     answer ${JSON.parse(ask.stdout).answer}`);
  rmSync(elsewhere, { recursive: true, force: true });
  console.log(
    `installed size: ${(sizeOf(path.join(app, 'node_modules')) / 1024 / 1024).toFixed(0)} MB (node_modules of the tarball install)`,
  );
} catch (error) {
  failed = true;
  console.log(`check-pack: ${error.message}`);
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
