// Writes docs/benchmarks.md from the benchmark scripts' own output, so the page is re-measured rather than
// re-edited: for each chosen benchmark, a short intro (what it measures, the command), its printed output verbatim,
// and the date and git commit it was measured at. A benchmark not run keeps the section the page has for it; one the
// page has none for is listed with its command.
//
// Usage: npm run build && node scripts/bench/write-benchmarks-page.mjs [bench-dir] [--only name,name] [--all] [--list]
//          [--out docs/benchmarks.md] [--timeout-min 60]
//   bench-dir  the public benchmark data (default ../shared/bench relative to the repository, when it exists)
//   --only     run these benchmarks (names from --list); default: the fast set. The page keeps the sections it
//              already has for the others, each with the commit it was measured at.
//   --all      run every benchmark (hours)
// A benchmark that fails or times out is listed with its exit status and the end of its output; the page is still written.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Every benchmark the page knows. `args(bench)` gives the command line after `node`; `fast` marks the default set
 * (minutes, not hours, on two cores); `needsBench` marks those that read the public data set.
 */
const BENCHMARKS = [
  {
    name: 'answer-sample',
    title: 'Offline answerer on the sample validation set',
    fast: true,
    needsBench: false,
    args: () => ['scripts/bench/answer.mjs', '--only', 'sample'],
    about:
      'Accuracy with a 95% Wilson interval, Brier score and ECE per retrieval mode of the offline answerer on ' +
      '`rawdoc/validation.csv`. This set is the tuning set (the weights and the calibration were chosen on it): a ' +
      'regression gate, not an estimate of accuracy on new questions.',
  },
  {
    name: 'verdicts',
    title: 'Per-option verdicts',
    fast: true,
    needsBench: true,
    args: (bench) => ['scripts/bench/verdicts.mjs', bench, '--only', 'sample,meta', '--modes', 'hybrid'],
    about:
      'Per set and mode: accuracy (abstentions as not right, and with every question answered), gold-chapter hit@8, ' +
      'ECE, mean confidence against accuracy, the share of options settled (a verdict other than not found), for ' +
      'right answers the share whose deciding quote lies in the gold chapter, and the share of quotes verbatim in ' +
      'their passage. Sets: the sample and meta-cert-fund dev over its notes (`--only sample,meta,financeiq`, ' +
      '`--modes`, `--keep DIR`, `--half even|odd`).',
  },
  {
    name: 'stard',
    title: 'Retrieval on real lay legal questions (STARD)',
    fast: true,
    needsBench: true,
    args: (bench) => ['scripts/bench/stard.mjs', bench],
    about:
      'STARD lay legal questions over the Civil Code PDF, cut one unit per article: the `search --queries` table per ' +
      'mode (R@1/5/10, MRR@10, nDCG@10, R@4k: the first 4,000 characters of ranked text hold a gold string, ' +
      'latency) next to a plain Okapi BM25 over the same chunks, with the ratio. Set `chunking.articleUnits: false` ' +
      'in a root and pass `--root` to measure windows instead.',
  },
  {
    name: 'answer-financeiq',
    title: 'Offline answerer on FinanceIQ over the fund laws (held out)',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/answer.mjs', '--bench', bench, '--only', 'financeiq'],
    about:
      "FinanceIQ's 436 fund-exam questions (`financeiq-fund/dev.csv`) over the thirteen fund-industry laws typeset " +
      'as one book (`fund-laws-combined.pdf`), offline answerer: accuracy, 95% CI, Brier, ECE per mode. The laws ' +
      'cover only part of what the exam asks, so accuracy near chance (25%, four options) is expected here; the ' +
      'same run by hand: `mkdir -p /tmp/fiq/rawdoc && cp <bench>/fund-laws/pdf-combined/fund-laws-combined.pdf ' +
      'rawdoc/userdict.txt /tmp/fiq/rawdoc/ && npx exam-copilot --root /tmp/fiq ingest && npx exam-copilot --root ' +
      '/tmp/fiq eval <bench>/financeiq-fund/dev.csv --modes keyword,vector,hybrid`.',
  },
  {
    name: 'calibration',
    title: 'Confidence calibration',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/fit-calibration.mjs', bench],
    about:
      'Refits the offline confidence calibration on the sample, FinanceIQ dev and meta-cert-fund dev, choosing the ' +
      'support knot and L2 by repeated 3-fold cross-validated log-loss, and prints before / after in-fit / after ' +
      'cross-validated: ECE with the ECE a calibrated confidence shows by chance on that many questions (the floor), ' +
      "Brier, selective accuracy at 25/50/75/100%, AURC, the top 10%'s accuracy against its stated confidence, and " +
      'the answered share per abstention threshold. "Before" is the calibration the answerer ships with. Options: ' +
      '`--knot`, `--l2` (fix them), `--repeats`, `--weighting question|set`, `--top-k`, `--mode`, `--keep DIR`, ' +
      '`--dump` / `--features F.json`.',
  },
  {
    name: 'eval-financeiq',
    title: 'Full eval of FinanceIQ',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/eval-financeiq.mjs', '--bench', bench, '--no-screenshot'],
    about: 'The full `eval` of the FinanceIQ questions over the fund laws: accuracy, CI, wall time, questions/s, reports.',
  },
  {
    name: 'retrieval',
    title: 'Retrieval and search latency',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/retrieval.mjs', '--bench', bench],
    about:
      "Recall@1/5/10 and MRR per mode on the sample's gold evidence; an answer-text proxy on the fund laws × " +
      'FinanceIQ; known-item look-ups of article phrases; search latency p50/p95 at 1k/10k/100k chunks, FAISS vs JS.',
  },
  {
    name: 'vector',
    title: 'Offline embedder quality',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/vector.mjs', bench],
    about:
      'Vector-mode Recall@1/5/10 and MRR@10 of the LSA embedder on STARD and on the sample; `--variants ' +
      'tfidf:256:1+2,bm25:128:2,…` refits LSA with other weightings, dimensions and character n-grams.',
  },
  {
    name: 'vector-latency',
    title: 'Vector index latency',
    fast: false,
    needsBench: false,
    args: () => ['scripts/bench/vector-latency.mjs'],
    about:
      'Flat FAISS vs flat JS vs the 8-bit scan with exact rescoring vs HNSW: latency of one query at 100k × 256 synthetic vectors, and how often the scan gives the top 10 and top 50 of the flat index.',
  },
  {
    name: 'speed',
    title: 'Speed',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/speed.mjs', bench],
    about:
      'One offline `ask` against `--version` (whole processes, paired, median of 7); `eval` answers/s on FinanceIQ in ' +
      'three modes; law-library ingest wall time and peak RSS; search p50/p95 per mode on the library.',
  },
  {
    name: 'ingest-speed',
    title: 'Ingest speed',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/ingest-speed.mjs', bench],
    about: "Pages per second against poppler's `pdftotext` in the same run; 目录 entries of the law books that became chapters.",
  },
  {
    name: 'ocr',
    title: 'OCR of a scanned book',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/ocr.mjs', bench],
    about:
      'A 30-page scanned law book (150 dpi, tilted, noisy JPEG): CER and body 4-gram recall against its true text, ' +
      'where a known article lands, pages/s with OCR, from the OCR cache and from a text layer; `--robustness` runs ' +
      'the real-world PDFs with OCR on.',
  },
  {
    name: 'robustness',
    title: 'Robustness on real-world PDFs',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/robustness.mjs', bench],
    about: 'Ingest of real-world PDFs (CJK, encrypted, corrupt, a decompression bomb): ok / clean error / crash / timeout per file.',
  },
  {
    name: 'reliability',
    title: 'Reliability',
    fast: false,
    needsBench: true,
    args: (bench) => ['scripts/bench/reliability.mjs', bench],
    about:
      'Fault and bad-input cases, one line per group (tried / held / failed): symlink loops, failed files keeping ' +
      'their chunks, parallel ingests and stale-lock takeovers, SIGKILL at fixed points of an ingest, hostile PDFs, ' +
      'exit codes, one-line errors, freshness, terminal escapes, and the LLM groups against scripted servers on ' +
      '127.0.0.1 (among them `llm-agent`: key echo, oversize reply, 429; `llm-obedient-model`: a planted instruction ' +
      'and a model that obeys it). `--only ingest,cli` picks modules; ' +
      '`node scripts/bench/reliability/llm.mjs <bench> --only <group>` ' +
      'runs one LLM group; `RELIABILITY_ROUNDS=N` scales the races; `npm run bench:reliability -- <bench>` is the ' +
      'same. The LLM groups take `--cli other/bin/exam-copilot.js` to measure another checkout.',
  },
];

function parseArgs(argv) {
  const options = { bench: undefined, only: undefined, all: false, list: false, out: 'docs/benchmarks.md', timeoutMin: 60 };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--only') options.only = argv[++i].split(',').filter(Boolean);
    else if (arg === '--all') options.all = true;
    else if (arg === '--list') options.list = true;
    else if (arg === '--out') options.out = argv[++i];
    else if (arg === '--timeout-min') options.timeoutMin = Number(argv[++i]);
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.bench = arg;
  }
  return options;
}

function git(args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}

/** The command as a reader would type it, with the data folder written as <bench>. */
function shown(benchmark) {
  return ['node', ...benchmark.args('<bench>')].join(' ');
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.list) {
    for (const b of BENCHMARKS) console.log(`${b.name.padEnd(18)} ${b.fast ? 'fast' : '    '}  ${shown(b)}`);
    return;
  }
  const unknown = (options.only ?? []).filter((name) => !BENCHMARKS.some((b) => b.name === name));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')} (see --list)`);
  const bench = path.resolve(options.bench ?? path.join(repo, '..', 'shared', 'bench'));
  const haveBench = existsSync(bench);
  const chosen = BENCHMARKS.filter((b) => (options.all ? true : options.only ? options.only.includes(b.name) : b.fast));
  const commit = git(['rev-parse', '--short=12', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'scripts', 'prompts', 'dict']) !== '';
  const sections = [];
  const notRun = [];
  // A benchmark not run now keeps the section the page already has for it, with the commit it was measured at.
  const out = path.resolve(repo, options.out);
  const previous = previousSections(out);
  for (const benchmark of BENCHMARKS) {
    if (!chosen.includes(benchmark)) {
      const kept = previous.get(benchmark.name);
      if (kept === undefined) notRun.push(benchmark);
      else sections.push({ benchmark, kept });
      continue;
    }
    if (benchmark.needsBench && !haveBench) {
      console.error(`${benchmark.name}: skipped, no benchmark data in ${bench}`);
      notRun.push(benchmark);
      continue;
    }
    console.error(`${benchmark.name}: running ${shown(benchmark)}`);
    const started = Date.now();
    const run = spawnSync(process.execPath, benchmark.args(bench), {
      cwd: repo,
      encoding: 'utf8',
      timeout: options.timeoutMin * 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const seconds = Math.round((Date.now() - started) / 1000);
    const status = run.error ? `did not finish (${run.error.message})` : run.status === 0 ? 'ok' : `exit ${run.status ?? run.signal}`;
    console.error(`${benchmark.name}: ${status} after ${seconds} s`);
    // Benchmarks print their tables on stdout and progress on stderr; a failed one shows the end of stderr too.
    let output = run.stdout.trimEnd();
    if (status !== 'ok') output += `\n--- stderr (last lines) ---\n${run.stderr.trimEnd().split('\n').slice(-20).join('\n')}`;
    sections.push({ benchmark, output, status, seconds, date: new Date(started).toISOString().slice(0, 16).replace('T', ' ') });
  }
  writeFileSync(out, page({ sections, notRun, commit, dirty }));
  console.error(`wrote ${options.out}`);
}

/** The sections an existing page holds, by benchmark name: from its `## title` line to the next heading. */
function previousSections(file) {
  const sections = new Map();
  if (!existsSync(file)) return sections;
  const text = readFileSync(file, 'utf8');
  for (const b of BENCHMARKS) {
    const start = text.indexOf(`\n## ${b.title}\n`);
    if (start < 0) continue;
    const next = text.indexOf('\n## ', start + 1);
    sections.set(b.name, text.slice(start + 1, next < 0 ? text.length : next).trimEnd());
  }
  return sections;
}

function page({ sections, notRun, commit, dirty }) {
  const lines = [
    '# Benchmarks',
    '',
    "<!-- Generated by scripts/bench/write-benchmarks-page.mjs from the benchmarks' own output: re-run it, do not edit. -->",
    '',
    'Benchmarks are scripts in `scripts/bench/`, not tests: they print numbers. Each section below says what one ' +
      'measures and the command, then shows what it printed, verbatim, with the date and the git commit it was ' +
      'measured at. Those that need public data read the folder passed as `<bench>` (see CONTRIBUTING.md for what it ' +
      'holds and where to get it); nothing from it is in this repository and `npm test` does not need it. Build first ' +
      '(`npm run build`). Timings depend on the machine and its load; accuracy does not.',
    '',
    'Regenerate this page: `node scripts/bench/write-benchmarks-page.mjs <bench>` (the fast set), `--only name,name` ' +
      '(names from `--list`) or `--all`.',
    '',
  ];
  for (const { benchmark, output, status, seconds, date, kept } of sections) {
    if (kept !== undefined) {
      lines.push(kept, '');
      continue;
    }
    lines.push(`## ${benchmark.title}`, '', benchmark.about, '', `\`${shown(benchmark)}\``, '');
    lines.push(
      `Measured ${date} UTC at commit \`${commit}\`${dirty ? ' (with uncommitted changes)' : ''}, ${seconds} s` +
        (status === 'ok' ? ':' : `; ${status}:`),
      '',
    );
    lines.push('```text', output, '```', '');
  }
  if (notRun.length > 0) {
    lines.push('## Not run in this generation', '', 'Run each with its command (`<bench>`: the data folder):', '');
    for (const b of notRun) lines.push(`- **${b.title}** (\`--only ${b.name}\`): \`${shown(b)}\`. ${b.about}`);
    lines.push('');
  }
  lines.push(
    '## Other measuring scripts',
    '',
    "- `node scripts/bench/html-screenshot.mjs report.html out.png [--filter wrong-any] [--at '#questions'] [--full-page]`: " +
      'renders an eval HTML report in headless Chromium (`apt-get install chromium`, or `CHROME_PATH`) and prints its ' +
      'size, its question cards and the filter counts.',
    "- `node scripts/faiss/check-python-read.mjs`: Python's `faiss.read_index` reads the files both vector backends " +
      'write (`apt-get install python3-faiss`).',
    '- `node scripts/bench/scale-library.mjs <bench> <out-dir>`: the law library plus a copy of every other law, its ' +
      'sentences in reverse order (95,135 units once ingested), for `speed.mjs --library-root` at scale.',
    '',
  );
  return lines.join('\n');
}

main();
