import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CJK_RADICALS_SUPPLEMENT, KANGXI_COMMON_FORMS, normalizeText } from '../../src/text/normalize-text.js';

/**
 * Each radical followed by the ideograph it must become, written as glyphs (the source writes code points), so a
 * slip in either shows up. After Unicode's EquivalentUnifiedIdeograph.txt; Kangxi radicals whose NFKC form is not the
 * one simplified-Chinese fonts share their glyph with are listed separately.
 */
const SUPPLEMENT_PAIRS =
  '⺁厂 ⺂乛 ⺃乚 ⺄乙 ⺅亻 ⺆冂 ⺇𠘨 ⺈𠂊 ⺉刂 ⺊卜 ⺋㔾 ⺌小 ⺍小 ⺎兀 ⺏尣 ⺐尢 ⺑𡯂 ⺒巳 ⺓幺 ⺔彑 ⺕彐 ⺖忄 ⺗㿃 ⺘扌 ⺙攵 ⺛旡 ⺜日 ⺝月 ⺞歺 ⺟母 ⺠民 ⺡氵 ⺢氺 ⺣灬 ⺤爫 ⺥爫 ⺦丬 ⺧牛 ⺨犭 ⺩王 ⺪𤴔 ⺫罒 ⺬示 ⺭礻 ⺮𥫗 ⺯糹 ⺰纟 ⺱罓 ⺲罒 ⺳㓁 ⺴网 ⺵𦉫 ⺶羊 ⺷羊 ⺸𦍌 ⺹耂 ⺺肀 ⺻聿 ⺼肉 ⺽臼 ⺾艹 ⺿艹 ⻀艹 ⻁虎 ⻂衤 ⻃覀 ⻄西 ⻅见 ⻆角 ⻇𧢲 ⻈讠 ⻉贝 ⻊𧾷 ⻋车 ⻌辶 ⻍辶 ⻎辶 ⻏阝 ⻐钅 ⻑長 ⻒镸 ⻓长 ⻔门 ⻕𨸏 ⻖阝 ⻗雨 ⻘青 ⻙韦 ⻚页 ⻛风 ⻜飞 ⻝食 ⻞𨥫 ⻟飠 ⻠饣 ⻡𩽾 ⻢马 ⻣骨 ⻤鬼 ⻥鱼 ⻦鸟 ⻧卤 ⻨麦 ⻩黄 ⻪黾 ⻫斉 ⻬齐 ⻭歯 ⻮齿 ⻯竜 ⻰龙 ⻱龜 ⻲亀 ⻳龟';
const KANGXI_PAIRS = '⼾户 ⾭青 ⿈黄';

const parsePairs = (list: string): [string, string][] =>
  list.split(' ').map((pair) => {
    const [radical, ideograph] = [...pair];
    return [radical ?? '', ideograph ?? ''];
  });

/** CJK Unified Ideographs, Extension A, and Extensions B onwards (planes 2 and 3). */
const UNIFIED = /^[\u3400-\u4DBF\u4E00-\u9FFF\u{20000}-\u{3134F}]$/u;

void describe('normalizeText: CJK Radicals Supplement table, one test per entry', () => {
  const pairs = parsePairs(SUPPLEMENT_PAIRS);
  void it('covers every assigned radical of U+2E81–U+2EF3, and nothing else', () => {
    const assigned: string[] = [];
    for (let cp = 0x2e81; cp <= 0x2ef3; cp++) if (cp !== 0x2e9a) assigned.push(String.fromCodePoint(cp));
    assert.deepEqual(Object.keys(CJK_RADICALS_SUPPLEMENT).sort(), assigned.sort());
    assert.deepEqual(pairs.map(([r]) => r).sort(), assigned.sort());
  });
  for (const [radical, ideograph] of pairs) {
    const cp = radical.codePointAt(0)?.toString(16).toUpperCase() ?? '?';
    void it(`U+${cp} ${radical} → ${ideograph}`, () => {
      assert.match(ideograph, UNIFIED);
      assert.equal(CJK_RADICALS_SUPPLEMENT[radical], ideograph);
      assert.equal(normalizeText(`中华${radical}法`), `中华${ideograph}法`);
    });
  }
});

void describe('normalizeText: Kangxi radicals', () => {
  for (const [radical, ideograph] of parsePairs(KANGXI_PAIRS)) {
    void it(`${radical} → ${ideograph} (the common form, not NFKC's ${radical.normalize('NFKC')})`, () => {
      assert.equal(KANGXI_COMMON_FORMS[radical], ideograph);
      assert.notEqual(radical.normalize('NFKC'), ideograph);
      assert.equal(normalizeText(`个体工商${radical}`), `个体工商${ideograph}`);
    });
  }
  void it('folds the other Kangxi radicals by NFKC, as pdf.js gives them from Chromium-printed PDFs', () => {
    assert.equal(normalizeText('中华\u2F08\u2EA0共和国\u2EA0法典：\u2F8F为能\u2F12'), '中华人民共和国民法典：行为能力');
  });
});

void describe('normalizeText: NFKC, full-width ASCII, invisible characters', () => {
  void it('turns full-width letters and digits into ASCII but keeps Chinese full-width punctuation', () => {
    assert.equal(normalizeText('ＥＴＦ基金１２３号，（一）：是；否！？'), 'ETF基金123号，（一）：是；否！？');
  });
  void it('removes zero-width characters, the BOM and soft hyphens', () => {
    assert.equal(normalizeText('基\u200B金\u200C托\u200D管\u2060人\uFEFF，ex\u00ADample'), '基金托管人，example');
  });
  void it('folds compatibility ideographs and the ideographic space', () => {
    assert.equal(normalizeText('\uF900\u3000X'), '\u8C48 X');
  });
  void it('keeps superscripts, circled numbers and the ellipsis, whose NFKC forms lose meaning', () => {
    assert.equal(normalizeText('10⁴ m² ① ⑴ ㈠ 等等…'), '10⁴ m² ① ⑴ ㈠ 等等…');
  });
  void it('leaves clean text untouched', () => {
    const clean = '第三十二条 基金托管人由依法设立的商业银行或者其他金融机构担任。Fund 1.5%';
    assert.equal(normalizeText(clean), clean);
  });
});
