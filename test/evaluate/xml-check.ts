/**
 * A small XML well-formedness checker for the JUnit tests: tags balance and nest, attributes are quoted and unique,
 * entities are the predefined or numeric ones, no raw `<` or `&` in text, no characters XML 1.0 forbids.
 * Returns the element tree so tests can count testcases and read failures.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][\w:.-]*/;

function decode(s: string, where: number): string {
  if (/[<]/.test(s)) throw new Error(`raw < in text or attribute near offset ${where}`);
  return s.replace(/&([^;]*);?/g, (m, ent: string) => {
    if (!m.endsWith(';')) throw new Error(`bare & near offset ${where}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[ent] !== undefined) return named[ent];
    const num = /^#(x[0-9a-fA-F]+|\d+)$/.exec(ent);
    if (!num) throw new Error(`unknown entity &${ent}; near offset ${where}`);
    return String.fromCodePoint(num[1]?.startsWith('x') ? parseInt(num[1].slice(1), 16) : Number(num[1]));
  });
}

export function parseXml(xml: string): XmlElement {
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.exec(xml);
  if (bad) throw new Error(`forbidden character U+${bad[0].charCodeAt(0).toString(16)} at offset ${bad.index}`);
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = lt === -1 ? xml.slice(i) : xml.slice(i, lt);
    if (text.trim() !== '') {
      const top = stack[stack.length - 1];
      if (!top) throw new Error(`text outside the root element at offset ${i}`);
      top.text += decode(text, i);
    }
    if (lt === -1) break;
    if (xml.startsWith('</', lt)) {
      const gt = xml.indexOf('>', lt);
      const name = xml.slice(lt + 2, gt).trim();
      const top = stack.pop();
      if (!top || top.name !== name) throw new Error(`</${name}> at offset ${lt} closes <${top?.name ?? 'nothing'}>`);
      i = gt + 1;
      continue;
    }
    let j = lt + 1;
    const nameMatch = NAME.exec(xml.slice(j));
    if (!nameMatch) throw new Error(`bad tag at offset ${lt}`);
    const el: XmlElement = { name: nameMatch[0], attrs: {}, children: [], text: '' };
    j += nameMatch[0].length;
    for (;;) {
      while (/\s/.test(xml[j] ?? '')) j++;
      if (xml.startsWith('/>', j) || xml[j] === '>') break;
      const attr = /^([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(xml.slice(j));
      if (!attr || !attr[1]) throw new Error(`bad attribute in <${el.name}> at offset ${j}`);
      if (el.attrs[attr[1]] !== undefined) throw new Error(`duplicate attribute ${attr[1]} at offset ${j}`);
      el.attrs[attr[1]] = decode(attr[3] ?? attr[4] ?? '', j);
      j += attr[0].length;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else if (root) throw new Error(`second root element at offset ${lt}`);
    else root = el;
    if (xml.startsWith('/>', j)) i = j + 2;
    else {
      stack.push(el);
      i = j + 1;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1]?.name ?? ''}>`);
  if (!root) throw new Error('no root element');
  return root;
}
