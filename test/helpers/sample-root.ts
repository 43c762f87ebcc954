import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { makeTempRoot, repoRoot, type TempRoot } from './temp-root.js';

/** What a root holds after `ingest`: copied into each test's root. */
const BUILT = ['rawdoc', 'data', 'index', '.exam-copilot'];

/** Longest wait for another test process that is building the same sample root. */
const WAIT_FOR_BUILDER_MS = 10 * 60_000;

/** Every file under `dir`, sorted, as paths relative to the repository. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile()) out.push(full);
  }
  return out.sort();
}

/**
 * A hash of what an ingest of the sample depends on: the sample itself, the compiled code and the starter dictionary.
 * Any change to them builds a new sample root; nothing else is trusted to stay the same.
 */
function sampleKey(): string {
  const hash = createHash('sha256');
  for (const dir of ['rawdoc', 'dist/src', 'dict']) {
    for (const file of filesUnder(path.join(repoRoot, dir))) {
      hash.update(path.relative(repoRoot, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock directory holding the builder's pid: `mkdir` is atomic, so one process builds and the others wait. */
function tryLock(lockDir: string): boolean {
  try {
    mkdirSync(lockDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    let holder = 0;
    try {
      holder = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    } catch {
      // The holder has made the directory but not written its pid yet: it is alive.
      return false;
    }
    if (holder > 0 && !processAlive(holder)) rmSync(lockDir, { recursive: true, force: true });
    return false;
  }
  writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
  return true;
}

/** Removes sample roots of earlier builds that nobody has used for a day (each build of the code makes a new one). */
function pruneOldRoots(keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(os.tmpdir())) {
    const full = path.join(os.tmpdir(), name);
    if (!name.startsWith('exam-copilot-sample-') || full === keep || name.endsWith('.lock')) continue;
    try {
      if (statSync(full).mtimeMs < dayAgo) rmSync(full, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
  }
}

/** Builds the sample root once per content of rawdoc/, dist/src/ and dict/, shared by every test process. */
async function builtSampleRoot(): Promise<string> {
  const built = path.join(os.tmpdir(), `exam-copilot-sample-${sampleKey()}`);
  const lockDir = `${built}.lock`;
  const deadline = Date.now() + WAIT_FOR_BUILDER_MS;
  while (!existsSync(built)) {
    if (tryLock(lockDir)) {
      try {
        if (existsSync(built)) break;
        const staging = `${built}.building-${process.pid}`;
        rmSync(staging, { recursive: true, force: true });
        mkdirSync(staging);
        cpSync(path.join(repoRoot, 'rawdoc'), path.join(staging, 'rawdoc'), { recursive: true });
        const { config } = loadConfig({ root: staging, env: {} });
        await runIngest({ root: staging, config });
        // The built root appears whole or not at all.
        renameSync(staging, built);
        pruneOldRoots(built);
      } finally {
        rmSync(lockDir, { recursive: true, force: true });
      }
      break;
    }
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_FOR_BUILDER_MS} ms for ${lockDir} to build the sample root`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return built;
}

/**
 * A fresh root holding the sample textbook already ingested with the default configuration, as `ingest` would leave
 * it: a copy of one root built per test run (in the OS temp folder, keyed by a hash of the sample and the compiled
 * code), so tests that only need an index do not ingest the sample again. Tests about ingest itself ingest.
 */
export async function sampleRoot(options: { files?: Record<string, string> } = {}): Promise<TempRoot> {
  const built = await builtSampleRoot();
  const tmp = makeTempRoot();
  for (const name of BUILT) {
    const from = path.join(built, name);
    if (existsSync(from) && statSync(from).isDirectory()) {
      cpSync(from, path.join(tmp.root, name), { recursive: true, preserveTimestamps: true });
    }
  }
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    mkdirSync(path.dirname(path.join(tmp.root, rel)), { recursive: true });
    writeFileSync(path.join(tmp.root, rel), text);
  }
  return tmp;
}
