/**
 * Character normalisation applied once, at ingest, to every text that reaches users: chunk text, headings,
 * outline titles, and so quotes and prompts. Shared below every stage so evaluation and queries can fold
 * their input the same way.
 *
 * PDF producers that pick the first code point of a glyph (Chromium/Skia, some Office exports) write CJK
 * radicals instead of ideographs: `中华⼈⺠共和国` for 中华人民共和国. A student who copies such a quote gets text
 * no search engine finds, so the radicals are mapped back to the ideographs they stand for.
 */

/**
 * CJK Radicals Supplement (U+2E80–U+2EF3) to the unified ideograph each radical is written with, after
 * Unicode's EquivalentUnifiedIdeograph.txt. U+2E80 (a repeat mark) and U+2E9A (unassigned) have none.
 * NFKC leaves this block untouched except U+2E9F and U+2EF3, which are listed anyway for completeness.
 */
export const CJK_RADICALS_SUPPLEMENT: Readonly<Record<string, string>> = {
  '\u2E81': '\u5382', // ⺁ 厂
  '\u2E82': '\u4E5B', // ⺂ 乛
  '\u2E83': '\u4E5A', // ⺃ 乚
  '\u2E84': '\u4E59', // ⺄ 乙
  '\u2E85': '\u4EBB', // ⺅ 亻
  '\u2E86': '\u5182', // ⺆ 冂
  '\u2E87': '\u{20628}', // ⺇ 𠘨
  '\u2E88': '\u{2008A}', // ⺈ 𠂊
  '\u2E89': '\u5202', // ⺉ 刂
  '\u2E8A': '\u535C', // ⺊ 卜
  '\u2E8B': '\u353E', // ⺋ 㔾
  '\u2E8C': '\u5C0F', // ⺌ 小
  '\u2E8D': '\u5C0F', // ⺍ 小
  '\u2E8E': '\u5140', // ⺎ 兀
  '\u2E8F': '\u5C23', // ⺏ 尣
  '\u2E90': '\u5C22', // ⺐ 尢
  '\u2E91': '\u{21BC2}', // ⺑ 𡯂
  '\u2E92': '\u5DF3', // ⺒ 巳
  '\u2E93': '\u5E7A', // ⺓ 幺
  '\u2E94': '\u5F51', // ⺔ 彑
  '\u2E95': '\u5F50', // ⺕ 彐
  '\u2E96': '\u5FC4', // ⺖ 忄
  '\u2E97': '\u3FC3', // ⺗ 㣺
  '\u2E98': '\u624C', // ⺘ 扌
  '\u2E99': '\u6535', // ⺙ 攵
  '\u2E9B': '\u65E1', // ⺛ 旡
  '\u2E9C': '\u65E5', // ⺜ 日
  '\u2E9D': '\u6708', // ⺝ 月
  '\u2E9E': '\u6B7A', // ⺞ 歺
  '\u2E9F': '\u6BCD', // ⺟ 母
  '\u2EA0': '\u6C11', // ⺠ 民
  '\u2EA1': '\u6C35', // ⺡ 氵
  '\u2EA2': '\u6C3A', // ⺢ 氺
  '\u2EA3': '\u706C', // ⺣ 灬
  '\u2EA4': '\u722B', // ⺤ 爫
  '\u2EA5': '\u722B', // ⺥ 爫
  '\u2EA6': '\u4E2C', // ⺦ 丬
  '\u2EA7': '\u725B', // ⺧ 牛
  '\u2EA8': '\u72AD', // ⺨ 犭
  '\u2EA9': '\u738B', // ⺩ 王
  '\u2EAA': '\u{24D14}', // ⺪ 𤴔
  '\u2EAB': '\u7F52', // ⺫ 罒
  '\u2EAC': '\u793A', // ⺬ 示
  '\u2EAD': '\u793B', // ⺭ 礻
  '\u2EAE': '\u{25AD7}', // ⺮ 𥫗
  '\u2EAF': '\u7CF9', // ⺯ 糹
  '\u2EB0': '\u7E9F', // ⺰ 纟
  '\u2EB1': '\u7F53', // ⺱ 罓
  '\u2EB2': '\u7F52', // ⺲ 罒
  '\u2EB3': '\u34C1', // ⺳ 㓁
  '\u2EB4': '\u7F51', // ⺴ 网
  '\u2EB5': '\u{2626B}', // ⺵ 𦉫
  '\u2EB6': '\u7F8A', // ⺶ 羊
  '\u2EB7': '\u7F8A', // ⺷ 羊
  '\u2EB8': '\u{2634C}', // ⺸ 𦍌
  '\u2EB9': '\u8002', // ⺹ 耂
  '\u2EBA': '\u8080', // ⺺ 肀
  '\u2EBB': '\u807F', // ⺻ 聿
  '\u2EBC': '\u8089', // ⺼ 肉
  '\u2EBD': '\u81FC', // ⺽ 臼
  '\u2EBE': '\u8279', // ⺾ 艹
  '\u2EBF': '\u8279', // ⺿ 艹
  '\u2EC0': '\u8279', // ⻀ 艹
  '\u2EC1': '\u864E', // ⻁ 虎
  '\u2EC2': '\u8864', // ⻂ 衤
  '\u2EC3': '\u8980', // ⻃ 覀
  '\u2EC4': '\u897F', // ⻄ 西
  '\u2EC5': '\u89C1', // ⻅ 见
  '\u2EC6': '\u89D2', // ⻆ 角
  '\u2EC7': '\u{278B2}', // ⻇ 𧢲
  '\u2EC8': '\u8BA0', // ⻈ 讠
  '\u2EC9': '\u8D1D', // ⻉ 贝
  '\u2ECA': '\u{27FB7}', // ⻊ 𧾷
  '\u2ECB': '\u8F66', // ⻋ 车
  '\u2ECC': '\u8FB6', // ⻌ 辶
  '\u2ECD': '\u8FB6', // ⻍ 辶
  '\u2ECE': '\u8FB6', // ⻎ 辶
  '\u2ECF': '\u961D', // ⻏ 阝
  '\u2ED0': '\u9485', // ⻐ 钅
  '\u2ED1': '\u9577', // ⻑ 長
  '\u2ED2': '\u9578', // ⻒ 镸
  '\u2ED3': '\u957F', // ⻓ 长
  '\u2ED4': '\u95E8', // ⻔ 门
  '\u2ED5': '\u{28E0F}', // ⻕ 𨸏
  '\u2ED6': '\u961D', // ⻖ 阝
  '\u2ED7': '\u96E8', // ⻗ 雨
  '\u2ED8': '\u9752', // ⻘ 青
  '\u2ED9': '\u97E6', // ⻙ 韦
  '\u2EDA': '\u9875', // ⻚ 页
  '\u2EDB': '\u98CE', // ⻛ 风
  '\u2EDC': '\u98DE', // ⻜ 飞
  '\u2EDD': '\u98DF', // ⻝ 食
  '\u2EDE': '\u{2896B}', // ⻞ 𨥫
  '\u2EDF': '\u98E0', // ⻟ 飠
  '\u2EE0': '\u9963', // ⻠ 饣
  '\u2EE1': '\u{29F7E}', // ⻡ 𩠐
  '\u2EE2': '\u9A6C', // ⻢ 马
  '\u2EE3': '\u9AA8', // ⻣ 骨
  '\u2EE4': '\u9B3C', // ⻤ 鬼
  '\u2EE5': '\u9C7C', // ⻥ 鱼
  '\u2EE6': '\u9E1F', // ⻦ 鸟
  '\u2EE7': '\u5364', // ⻧ 卤
  '\u2EE8': '\u9EA6', // ⻨ 麦
  '\u2EE9': '\u9EC4', // ⻩ 黄
  '\u2EEA': '\u9EFE', // ⻪ 黾
  '\u2EEB': '\u6589', // ⻫ 斉
  '\u2EEC': '\u9F50', // ⻬ 齐
  '\u2EED': '\u6B6F', // ⻭ 歯
  '\u2EEE': '\u9F7F', // ⻮ 齿
  '\u2EEF': '\u7ADC', // ⻯ 竜
  '\u2EF0': '\u9F99', // ⻰ 龙
  '\u2EF1': '\u9F9C', // ⻱ 龜
  '\u2EF2': '\u4E80', // ⻲ 亀
  '\u2EF3': '\u9F9F', // ⻳ 龟
};

/**
 * Kangxi radicals whose NFKC target is a traditional or variant form, while the glyph a simplified-Chinese
 * font shares with the radical is the common form (what poppler reads from the same files): ⼾ is 户, not 戶.
 */
export const KANGXI_COMMON_FORMS: Readonly<Record<string, string>> = {
  '\u2F3E': '\u6237', // ⼾ 户 (NFKC: 戶)
  '\u2FAD': '\u9752', // ⾭ 青 (NFKC: 靑)
  '\u2FC8': '\u9EC4', // ⿈ 黄 (NFKC: 黃)
};

const RADICAL = /[\u2E80-\u2EFF\u2F3E\u2FAD\u2FC8]/gu;

/**
 * Characters NFKC would fold although the fold loses meaning in Chinese textbooks, so they are kept:
 * full-width punctuation (the standard form in Chinese text: ，：；（）！？), the ellipsis, superscripts and
 * subscripts (m², 10⁴), and circled or parenthesised list numbers (①, ⑴, ㈠).
 */
const KEEP = /[\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65\u2026\u00B2\u00B3\u00B9\u2070-\u209F\u2460-\u24FF\u3200-\u32FF]+/u;

/** Zero-width characters, the byte-order mark and the soft hyphen: invisible, and they break matching. */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200D\u2060\uFEFF]/gu;

/** Anything the normaliser could change; text without it is returned as it is (the common, fast case). */
const NEEDS_WORK = /[^\t\n\r\u0020-\u007E\u3001-\u3035\u4E00-\u9FFF\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65\u2026]/u;

/**
 * Normalises extracted text: CJK radicals to the ideographs they stand for (table above), then NFKC (Kangxi
 * radicals, compatibility ideographs, full-width letters and digits, ideographic space) except for the
 * characters in `KEEP`, then removes zero-width characters and soft hyphens.
 */
export function normalizeText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  const mapped = text.replace(RADICAL, (ch) => CJK_RADICALS_SUPPLEMENT[ch] ?? KANGXI_COMMON_FORMS[ch] ?? ch);
  let out = '';
  let rest = mapped;
  for (let m = KEEP.exec(rest); m !== null; m = KEEP.exec(rest)) {
    out += rest.slice(0, m.index).normalize('NFKC') + m[0];
    rest = rest.slice(m.index + m[0].length);
  }
  out += rest.normalize('NFKC');
  return out.replace(INVISIBLE, '');
}

/** Control characters other than tab and line breaks (NUL, ESC, DEL, C1): never meant as text. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/gu;

/**
 * Removes what a reader cannot see from typed or pasted text: zero-width characters, the byte-order mark and the
 * soft hyphen (as {@link normalizeText} removes them from book text), and control characters. Used on questions,
 * where the rest of book normalisation (NFKC) would change meaning (Ⅰ/Ⅱ statement markers become I/II).
 */
export function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, '').replace(CONTROL, '');
}
