import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runOfflineCli } from '../helpers/run-cli.js';
import { sampleRoot } from '../helpers/sample-root.js';
import type { TempRoot } from '../helpers/temp-root.js';

// A question of the sample book whose one sentence settles every option: 示例股票基金的年托管费率为百分之零点二，货币市场基金为百分之零点零五。
const FEE = '在本书示例中，货币市场基金的年托管费率为（　）。A.0.05% B.0.20% C.0.25% D.0.60%';
const QUOTE = '货币市场基金为**百分之零点零五**。';

describe("ask's option lines, as a student reads them", () => {
  let tmp: TempRoot;
  before(async () => {
    tmp = await sampleRoot();
  });
  after(() => tmp.cleanup());

  /** `ask` offline on the sample, exit 0, and its output's lines. */
  function askLines(question: string): { r: ReturnType<typeof runOfflineCli>; lines: string[] } {
    const r = runOfflineCli(['--root', tmp.root, 'ask', question]);
    assert.equal(r.status, 0, r.stderr);
    return { r, lines: r.stdout.split('\n') };
  }

  it('one line per option with its verdict and reason, and a clause already shown is pointed to, not printed again', () => {
    const { r, lines } = askLines(FEE);
    assert.equal(lines[0], 'Answer: A 0.05%');
    const at = lines.indexOf('Options:');
    assert.ok(at > 0, r.stdout);
    assert.deepEqual(lines.slice(at + 1, at + 9), [
      '  ✓ A 0.05% — 教材支持',
      '      （同上方证据 · same clause as the evidence above）',
      '  ✗ B 0.20% — 数字不同：百分之零点零五',
      '      （同上方证据 · same clause as the evidence above）',
      '  ✗ C 0.25% — 数字不同：百分之零点零五',
      '      （同上方证据 · same clause as the evidence above）',
      '  ✗ D 0.60% — 数字不同：百分之零点零五',
      '      （同上方证据 · same clause as the evidence above）',
    ]);
    // The clause itself is printed once, under Evidence, with the deciding number marked.
    assert.equal(r.stdout.split(QUOTE).length - 1, 1, r.stdout);
  });

  it('a clause shown before but with other words marked is printed again, marked for this option', () => {
    const { r, lines } = askLines(
      '特雷诺比率与夏普比率的区别在于，特雷诺比率以（　）作为风险的衡量指标。A.标准差 B.跟踪误差 C.最大回撤 D.贝塔系数',
    );
    const a = lines.indexOf('  ✗ A 标准差 — 否定：而不是');
    assert.ok(a > 0, r.stdout);
    assert.match(lines[a + 1] ?? '', /以贝塔系数\*\*而不是\*\*标准差作为风险的衡量指标/u);
    // The reason for another option names what the book states there, not what it sets aside.
    assert.ok(lines.includes('  ✗ B 跟踪误差 — 教材此处为：贝塔系数'), r.stdout);
    const d = lines.indexOf('  ✓ D 贝塔系数 — 教材支持');
    assert.equal(lines[d + 1], '      （同上方证据 · same clause as the evidence above）');
  });

  it('a clause printed again for other marks is printed once: the next option marking the same words points to it', () => {
    const { r, lines } = askLines(
      '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构',
    );
    const c = lines.indexOf('  ✗ C 基金销售机构 — 教材此处为：基金托管人、基金管理人');
    assert.ok(c > 0, r.stdout);
    assert.match(lines[c + 1] ?? '', /由\*\*基金托管人\*\*负责保管、由\*\*基金管理人\*\*负责投资运作/u);
    assert.deepEqual(lines.slice(c + 3, c + 5), [
      '  ✗ D 基金份额登记机构 — 教材此处为：基金托管人、基金管理人',
      '      （同 C · same clause as C）',
    ]);
  });

  it('--json keeps every verdict whole, with its own quote; --no-verdicts hides the lines', () => {
    const json = runOfflineCli(['--root', tmp.root, '--json', 'ask', FEE]);
    assert.equal(json.status, 0, json.stderr);
    const verdicts = (JSON.parse(json.stdout) as { verdicts: { label: string; verdict: string; evidence?: { quote: string } }[] }).verdicts;
    assert.deepEqual(
      verdicts.map((v) => [v.label, v.verdict]),
      [
        ['A', 'supported'],
        ['B', 'contradicted'],
        ['C', 'contradicted'],
        ['D', 'contradicted'],
      ],
    );
    for (const v of verdicts) assert.match(v.evidence?.quote ?? '', /货币市场基金为百分之零点零五/u);
    const hidden = runOfflineCli(['--root', tmp.root, 'ask', '--no-verdicts', FEE]);
    assert.equal(hidden.status, 0, hidden.stderr);
    assert.doesNotMatch(hidden.stdout, /^Options:/mu);
    assert.match(hidden.stdout, /^Answer: A 0\.05%$/mu);
  });
});
