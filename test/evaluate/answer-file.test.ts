import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import type { OptionVerdict } from '../../src/answer/answer-types.js';
import { ANSWER_COLUMNS, verdictsCell } from '../../src/evaluate/answer-sheet.js';
import { runAnswerFile, type AnsweredRow } from '../../src/evaluate/run-answer-file.js';
import { runEval } from '../../src/evaluate/run-eval.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { pauseEnv } from '../helpers/pause-at.js';
import { sampleRoot } from '../helpers/sample-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const Q1 = ['S001', '根据证券投资基金的定义，基金财产由（　）负责保管。', '基金托管人', '基金管理人', '基金销售机构', '基金份额登记机构'];
const Q2 = ['S002', '与股票、债券相比，契约型基金反映的是一种（　）。', '所有权关系', '债权债务关系', '信托关系', '委托代理关系'];

describe('answer: a question-only set answered and written back', () => {
  let tmp: TempRoot;
  let config: ExamCopilotConfig;
  const env = offlineEnv();

  before(async () => {
    tmp = await sampleRoot();
    config = loadConfig({ root: tmp.root, env: {} }).config;
  });
  after(() => tmp.cleanup());

  it('XLSX in, XLSX out: the sheet, its cells and formatting kept, the answer columns added', async () => {
    const input = path.join(tmp.root, 'mock.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('模拟考试');
    sheet.addRow(['id', 'question', 'A', 'B', 'C', 'D', 'answer']);
    sheet.addRow([...Q1, '']);
    sheet.addRow([...Q2, 'C']);
    sheet.addRow(['S003', '', '甲', '乙', '丙', '丁', '']);
    sheet.getRow(1).font = { bold: true, color: { argb: 'FF1F4E79' } };
    sheet.getRow(1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDDEBF7' } };
    sheet.getColumn(2).width = 48;
    await wb.xlsx.writeFile(input);

    const output = path.join(tmp.root, 'mock.answered.xlsx');
    const result = await runAnswerFile({ root: tmp.root, config, file: input, output, mode: 'hybrid', topK: 8, cache: false });
    assert.equal(result.scored, 1);
    assert.equal(result.correct, 1, 'S002 is answered C, its gold');
    assert.equal(result.unscored, 1);
    assert.deepEqual(result.unreadable, [{ line: 4, problem: 'empty question' }]);

    const back = new ExcelJS.Workbook();
    await back.xlsx.readFile(output);
    const out = back.getWorksheet('模拟考试');
    assert.ok(out, 'the input sheet, by name');
    const values = (row: number): unknown[] => (out.getRow(row).values as unknown[]).slice(1);
    assert.deepEqual(values(1), [
      'id',
      'question',
      'A',
      'B',
      'C',
      'D',
      'answer',
      'predicted',
      'basis',
      'confidence',
      'confidence_label',
      'verdicts',
      'evidence',
      'fallback',
    ]);
    assert.deepEqual(values(2).slice(0, 6), Q1, 'input cells unchanged, cell by cell');
    assert.equal(values(2)[7], 'A');
    assert.equal(values(2)[8], 'evidence');
    assert.equal(typeof values(2)[9], 'number');
    assert.match(String(values(2)[12]), /上册 \| 第一章 .*\| p\.\d+/);
    assert.deepEqual(values(3).slice(0, 7), [...Q2, 'C']);
    assert.equal(values(3)[7], 'C');
    assert.equal(values(4)[8], 'unreadable');
    assert.match(String(values(4)[13]), /^unreadable: empty question/);
    // Formatting kept on the input's header and copied to the new header cells; the column width kept.
    assert.equal(out.getCell('A1').font?.bold, true);
    assert.equal(out.getCell('A1').font?.color?.argb, 'FF1F4E79');
    assert.equal((out.getCell('A1').fill as { fgColor?: { argb?: string } }).fgColor?.argb, 'FFDDEBF7');
    assert.equal(out.getCell('H1').font?.bold, true);
    assert.equal(out.getColumn(2).width, 48);
  });

  it('GBK CSV in, CSV out: rows in order, formula cells neutralised, accuracy on the answered rows only', async () => {
    const input = path.join(tmp.root, 'bank.csv');
    const rows = [
      ['id', 'question', 'A', 'B', 'C', 'D', '答案'],
      [...Q1.slice(0, 5), '=HYPERLINK("http://x","点我")', ''],
      [...Q2, 'B'],
    ];
    writeFileSync(
      input,
      iconv.encode(
        rows.map((r) => r.map((c) => (/[",]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\r\n') + '\r\n',
        'gbk',
      ),
    );
    const output = path.join(tmp.root, 'bank.out.csv');
    const result = await runAnswerFile({ root: tmp.root, config, file: input, output, mode: 'hybrid', topK: 8, cache: false });
    assert.equal(result.scored, 1);
    assert.equal(result.correct, 0, 'S002 is answered C, not the given B');
    const text = readFileSync(output, 'utf8');
    assert.ok(text.startsWith('\ufeff'), 'a BOM, so Excel reads UTF-8');
    const lines = text.slice(1).trim().split('\r\n');
    assert.equal(lines[0], 'id,question,A,B,C,D,答案,predicted,basis,confidence,confidence_label,verdicts,evidence,fallback');
    assert.ok(lines[1]?.startsWith('S001,根据证券投资基金的定义'));
    assert.match(lines[1] ?? '', /"'=HYPERLINK\(""http:\/\/x"",""点我""\)"/);
    assert.ok(lines[2]?.startsWith('S002,'));
  });

  it('an answered copy answered again gets its answer columns rewritten in place, not a second set beside them', async () => {
    const first = path.join(tmp.root, 'again.csv');
    writeFileSync(first, ['id,question,A,B,C,D,answer', Q1.join(',') + ',', Q2.join(',') + ',C'].join('\r\n') + '\r\n');
    const answered = path.join(tmp.root, 'again.answered.csv');
    await runAnswerFile({ root: tmp.root, config, file: first, output: answered, mode: 'hybrid', topK: 8, cache: false });
    // The copy as a teacher might hand it back: S001's letter and basis overwritten by hand.
    const lines = readFileSync(answered, 'utf8').slice(1).trim().split('\r\n');
    const header = lines[0]!.split(',');
    const col = (name: string): number => header.indexOf(name);
    const s001 = lines[1]!.split(',');
    s001[col('predicted')] = 'D';
    s001[col('basis')] = 'by hand';
    writeFileSync(answered, [lines[0], s001.slice(0, col('verdicts')).join(',') + ',,,', lines[2]].join('\r\n') + '\r\n');

    const again = path.join(tmp.root, 'again.twice.csv');
    await runAnswerFile({ root: tmp.root, config, file: answered, output: again, mode: 'hybrid', topK: 8, cache: false });
    const out = readFileSync(again, 'utf8').slice(1).trim().split('\r\n');
    assert.equal(out[0], lines[0], 'the same columns, each once');
    const row = (line: string): string[] => line.match(/("([^"]|"")*"|[^,]*)(,|$)/gu)!.map((c) => c.replace(/,$/u, ''));
    assert.equal(row(out[1]!)[col('predicted')], 'A', 'the answer written over the old one');
    assert.equal(row(out[1]!)[col('basis')], 'evidence');
    assert.match(row(out[1]!)[col('evidence')] ?? '', /上册/);
    assert.equal(row(out[2]!)[col('predicted')], 'C');

    // XLSX: the answered copy of a workbook, answered again, keeps one set of columns too.
    const book = path.join(tmp.root, 'again.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('卷');
    sheet.addRow(['id', 'question', 'A', 'B', 'C', 'D', 'answer']);
    sheet.addRow([...Q1, '']);
    await wb.xlsx.writeFile(book);
    const once = path.join(tmp.root, 'again.answered.xlsx');
    const twice = path.join(tmp.root, 'again.twice.xlsx');
    await runAnswerFile({ root: tmp.root, config, file: book, output: once, mode: 'hybrid', topK: 8, cache: false });
    await runAnswerFile({ root: tmp.root, config, file: once, output: twice, mode: 'hybrid', topK: 8, cache: false });
    const back = new ExcelJS.Workbook();
    await back.xlsx.readFile(twice);
    const values = (r: number): unknown[] => (back.getWorksheet('卷')!.getRow(r).values as unknown[]).slice(1);
    assert.deepEqual(values(1), ['id', 'question', 'A', 'B', 'C', 'D', 'answer', ...ANSWER_COLUMNS]);
    assert.equal(values(2)[7], 'A');
  });

  it('eval refuses a file without answers with a one-line hint (exit 1)', () => {
    const input = path.join(tmp.root, 'noans.csv');
    writeFileSync(input, `${['id', 'question', 'A', 'B', 'C', 'D'].join(',')}\n${Q1.join(',')}\n`);
    const r = spawnSync(process.execPath, [bin, '--root', tmp.root, 'eval', input], { env, encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /no answer column.*exam-copilot answer/);
  });

  it('resumes after SIGKILL without losing or repeating a row', async () => {
    const input = path.join(tmp.root, 'resume.csv');
    const extra = [
      'S003',
      '不同国家和地区对基金的称谓不同，美国通常将其称为（　）。',
      '共同基金',
      '单位信托基金',
      '证券投资信托基金',
      '集合资产管理计划',
    ];
    writeFileSync(input, `${['id', 'question', 'A', 'B', 'C', 'D'].join(',')}\n${[Q1, Q2, extra].map((r) => r.join(',')).join('\n')}\n`);
    const marker = path.join(tmp.root, 'paused');
    const output = path.join(tmp.root, 'resume.out.jsonl');
    const child = spawn(process.execPath, [bin, '--root', tmp.root, 'answer', input, '-o', output], {
      env: { ...env, ...pauseEnv('answer', '1', marker) },
    });
    for (let i = 0; i < 600 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(marker), 'the run paused after its first row');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const runFile = path.join(tmp.root, '.exam-copilot', 'runs', 'resume.csv.answer.jsonl');
    assert.equal(readFileSync(runFile, 'utf8').trim().split('\n').length, 1, 'the kill landed after exactly one row');
    assert.equal(existsSync(output), false);

    const again = spawnSync(process.execPath, [bin, '--root', tmp.root, '--json', 'answer', input, '-o', output, '--resume'], {
      env,
      encoding: 'utf8',
    });
    assert.equal(again.status, 0, again.stderr);
    const summary = JSON.parse(again.stdout) as { resumed: number; answered: number };
    assert.deepEqual([summary.resumed, summary.answered], [1, 2]);
    const out = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; predicted: string });
    assert.deepEqual(
      out.map((o) => o.id),
      ['S001', 'S002', 'S003'],
    );
    assert.ok(out.every((o) => /^[A-D]$/.test(o.predicted)));
    assert.equal(
      new Set(
        readFileSync(runFile, 'utf8')
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { line: number }).line),
      ).size,
      3,
    );
  });

  it('writes a letter on every row: an abstention as its best guess, marked; scored as eval scores it', async () => {
    const file = path.join(tmp.root, 'rawdoc', 'validation.csv');
    const output = path.join(tmp.root, 'validation.answered.jsonl');
    const result = await runAnswerFile({ root: tmp.root, config, file, output, mode: 'hybrid', topK: 8, cache: false });
    const out = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AnsweredRow);
    assert.ok(out.length >= 70);
    assert.deepEqual(
      out.filter((o) => !/^[A-H]+$/.test(o.predicted)).map((o) => o.id),
      [],
      'no row without a letter',
    );
    const guesses = out.filter((o) => o.basis === 'guess');
    assert.ok(guesses.length > 0, 'the offline answerer abstains on some sample questions');
    assert.ok(guesses.every((o) => o.confidence_label === 'guess' && o.fallback !== ''));
    assert.deepEqual([result.byEvidence, result.guessed, result.unreadable.length], [out.length - guesses.length, guesses.length, 0]);

    // eval over the same file and mode: the same rows are right, and the guesses are eval's abstentions with eval's guess.
    const report = await runEval({
      root: tmp.root,
      config,
      file,
      modes: ['hybrid'],
      answerer: 'offline',
      workers: 1,
      runDir: path.join(tmp.root, 'cmp'),
    });
    const records = new Map((report.records.hybrid ?? []).map((r) => [r.id, r]));
    assert.deepEqual(
      result.rows.filter((r) => r.correct).map((r) => r.id),
      (report.records.hybrid ?? []).filter((r) => r.correct).map((r) => r.id),
    );
    assert.equal(result.correct, report.modes[0]?.correct);
    for (const g of guesses) {
      const r = records.get(g.id);
      assert.equal(r?.predicted, '', `${g.id} is an abstention in eval`);
      assert.equal(r?.guess, g.predicted, `${g.id}: the written letter is eval's guess`);
    }
  });

  it('a verdicts cell a teacher reads: one bounded line per option', () => {
    const where = {
      chunk_id: 'c1',
      book: '上册',
      chapter: '第一章 证券投资基金概述',
      section: '',
      figure_ref: '',
      page_start: '7',
      page_end: '7',
    };
    const verdicts: OptionVerdict[] = [
      {
        label: 'A',
        target: 'option',
        text: '基金托管人',
        verdict: 'supported',
        evidence: { ...where, articles: ['第三十六条'], quote: '基金财产由基金托管人保管。' },
      },
      {
        label: 'B',
        target: 'option',
        text: '基金管理人',
        verdict: 'contradicted',
        reason: '主体不同：基金托管人',
        evidence: { ...where, quote: '基'.repeat(200) },
      },
      { label: 'C', target: 'option', text: '基金销售机构'.repeat(10), verdict: 'not_found' },
    ];
    const lines = verdictsCell(verdicts).split('\n');
    assert.deepEqual(lines.slice(0, 1), [
      'A ✓ 基金托管人：「基金财产由基金托管人保管。」（上册 | 第一章 证券投资基金概述 | 第三十六条 | p.7）',
    ]);
    assert.equal(lines[1], `B ✗ 基金管理人：「${'基'.repeat(79)}…」（上册 | 第一章 证券投资基金概述 | p.7） 主体不同：基金托管人`);
    assert.equal(lines[2], `C ? ${[...'基金销售机构'.repeat(4)].slice(0, 23).join('')}…：未找到`);
    assert.equal(verdictsCell(undefined), '');
  });

  it("XLSX text is written as it is: the user's -5%, +3%, =1+1 and @持平 survive CSV→XLSX and XLSX→XLSX; CSV output is guarded", async () => {
    const tricky = ['S009', '该基金上月的收益率约为（　）。', '-5%', '+3%', '=1+1', '@持平'];
    const csvIn = path.join(tmp.root, 'tricky.csv');
    writeFileSync(csvIn, `${['id', 'question', 'A', 'B', 'C', 'D'].join(',')}\n${tricky.join(',')}\n`);
    const fromCsv = path.join(tmp.root, 'tricky.answered.xlsx');
    await runAnswerFile({ root: tmp.root, config, file: csvIn, output: fromCsv, mode: 'hybrid', topK: 8, cache: false });
    const read = async (file: string): Promise<unknown[]> => {
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.readFile(file);
      return (wb.worksheets[0]?.getRow(2).values as unknown[]).slice(1);
    };
    assert.deepEqual((await read(fromCsv)).slice(0, 6), tricky, 'CSV → XLSX: every cell as the user wrote it');

    const xlsxIn = path.join(tmp.root, 'tricky.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('题');
    sheet.addRow(['id', 'question', 'A', 'B', 'C', 'D']);
    sheet.addRow(tricky);
    await wb.xlsx.writeFile(xlsxIn);
    const fromXlsx = path.join(tmp.root, 'tricky.out.xlsx');
    await runAnswerFile({ root: tmp.root, config, file: xlsxIn, output: fromXlsx, mode: 'hybrid', topK: 8, cache: false });
    const back = await read(fromXlsx);
    assert.deepEqual(back.slice(0, 6), tricky, 'XLSX → XLSX: the user cells untouched');
    assert.match(String(back[6]), /^[A-D]$/);

    const csvOut = path.join(tmp.root, 'tricky.out.csv');
    await runAnswerFile({ root: tmp.root, config, file: xlsxIn, output: csvOut, mode: 'hybrid', topK: 8, cache: false });
    const row = readFileSync(csvOut, 'utf8').split('\r\n')[1] ?? '';
    assert.ok(row.startsWith("S009,该基金上月的收益率约为（　）。,'-5%,'+3%,'=1+1,'@持平,"), row);
  });

  it('a second answer run on the same file stops with one line instead of wiping the first one’s progress', async () => {
    const input = path.join(tmp.root, 'locked.csv');
    writeFileSync(input, `${['id', 'question', 'A', 'B', 'C', 'D'].join(',')}\n${[Q1, Q2].map((r) => r.join(',')).join('\n')}\n`);
    const marker = path.join(tmp.root, 'locked-paused');
    const first = spawn(process.execPath, [bin, '--root', tmp.root, 'answer', input], {
      env: { ...env, ...pauseEnv('answer', '1', marker) },
    });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    try {
      for (let i = 0; i < 600 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(existsSync(marker), 'the first run paused after its first row, holding the lock');
      const runFile = path.join(tmp.root, '.exam-copilot', 'runs', 'locked.csv.answer.jsonl');
      const second = spawnSync(process.execPath, [bin, '--root', tmp.root, 'answer', input], { env, encoding: 'utf8' });
      assert.equal(second.status, 1, second.stderr);
      assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
      assert.match(second.stderr, /another answer run is answering .*locked\.csv \(pid \d+/);
      assert.equal(readFileSync(runFile, 'utf8').trim().split('\n').length, 1, "the first run's row is still there");
    } finally {
      first.kill('SIGKILL');
      await exited;
    }
  });
});
