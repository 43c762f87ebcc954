import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createColors } from '../../src/cli/report/colors.js';
import { snippet } from '../../src/cli/report/search.js';
import { createUi } from '../../src/cli/report/ui.js';

/** A stream that says it is (or is not) a terminal, collecting what is written. */
function stream(isTTY: boolean): { s: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const s = new PassThrough() as unknown as NodeJS.WriteStream;
  Object.assign(s, { isTTY });
  s.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  return { s, text: () => chunks.join('') };
}

describe('terminal colours', () => {
  it('wraps a text in SGR sequences when enabled, and leaves it alone when not', () => {
    const on = createColors(true);
    assert.equal(on.bold('答案'), '\u001b[1m答案\u001b[22m');
    assert.equal(on.red('x'), '\u001b[31mx\u001b[39m');
    assert.equal(on.dim('x'), '\u001b[2mx\u001b[22m');
    assert.equal(on.bold(on.yellow('托管人')), '\u001b[1m\u001b[33m托管人\u001b[39m\u001b[22m');
    const off = createColors(false);
    assert.equal(off.enabled, false);
    for (const f of [off.bold, off.dim, off.red, off.green, off.yellow, off.cyan, off.magenta]) assert.equal(f('答案'), '答案');
  });

  it('keeps an outer style on after a nested one of the same kind ends, and closes it at each line break', () => {
    const c = createColors(true);
    assert.equal(c.red(`a${c.red('b')}c`), '\u001b[31ma\u001b[31mb\u001b[39m\u001b[31mc\u001b[39m');
    assert.equal(c.dim('one\ntwo'), '\u001b[2mone\u001b[22m\n\u001b[2mtwo\u001b[22m');
    assert.equal(c.dim('one\r\ntwo'), '\u001b[2mone\u001b[22m\r\n\u001b[2mtwo\u001b[22m');
  });

  it('colours stdout and stderr only on a terminal and never with NO_COLOR', () => {
    const tty = { out: stream(true), err: stream(true) };
    const ui = createUi({ json: false, quiet: false, verbose: false }, { stdout: tty.out.s, stderr: tty.err.s, env: {} });
    ui.out(ui.color.bold('Answer:'));
    ui.warn('index is stale');
    assert.equal(tty.out.text(), '\u001b[1mAnswer:\u001b[22m\n');
    assert.equal(tty.err.text(), '\u001b[33mwarning: index is stale\u001b[39m\n');

    const piped = { out: stream(false), err: stream(false) };
    const plain = createUi({ json: false, quiet: false, verbose: false }, { stdout: piped.out.s, stderr: piped.err.s, env: {} });
    plain.out(plain.color.bold('Answer:'));
    plain.error('bad file');
    assert.equal(piped.out.text(), 'Answer:\n');
    assert.equal(piped.err.text(), 'error: bad file\n');

    const noColor = { out: stream(true), err: stream(true) };
    const off = createUi(
      { json: false, quiet: false, verbose: false },
      { stdout: noColor.out.s, stderr: noColor.err.s, env: { NO_COLOR: '1' } },
    );
    off.out(off.color.cyan('0.5'));
    assert.equal(noColor.out.text(), '0.5\n');
  });

  it('highlights the query terms of a search snippet only when colour is on', () => {
    const text = '基金托管人应当安全保管基金财产。';
    assert.equal(snippet(text, '托管人', createColors(false)), text);
    assert.equal(snippet(text, '托管人', createColors(true)), '基金\u001b[1m\u001b[33m托管人\u001b[39m\u001b[22m应当安全保管基金财产。');
  });
});
