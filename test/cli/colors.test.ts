import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createColors } from '../../src/cli/report/colors.js';
import { snippet } from '../../src/cli/report/search.js';
import { createUi, showsSpinner } from '../../src/cli/report/ui.js';

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
    /** A UI over two collecting streams that are, or are not, terminals. */
    const uiOn = (isTTY: boolean, env: NodeJS.ProcessEnv = {}) => {
      const [out, err] = [stream(isTTY), stream(isTTY)];
      const ui = createUi({ json: false, quiet: false, verbose: false }, { stdout: out.s, stderr: err.s, env });
      return { ui, out: out.text, err: err.text };
    };
    const tty = uiOn(true);
    tty.ui.out(tty.ui.color.bold('Answer:'));
    tty.ui.warn('index is stale');
    assert.equal(tty.out(), '\u001b[1mAnswer:\u001b[22m\n');
    assert.equal(tty.err(), '\u001b[33mwarning: index is stale\u001b[39m\n');

    const piped = uiOn(false);
    piped.ui.out(piped.ui.color.bold('Answer:'));
    piped.ui.error('bad file');
    assert.equal(piped.out(), 'Answer:\n');
    assert.equal(piped.err(), 'error: bad file\n');

    const noColor = uiOn(true, { NO_COLOR: '1' });
    noColor.ui.out(noColor.ui.color.cyan('0.5'));
    assert.equal(noColor.out(), '0.5\n');
  });

  it('highlights the query terms of a search snippet only when colour is on', () => {
    const text = '基金托管人应当安全保管基金财产。';
    assert.equal(snippet(text, '托管人', createColors(false)), text);
    assert.equal(snippet(text, '托管人', createColors(true)), '基金\u001b[1m\u001b[33m托管人\u001b[39m\u001b[22m应当安全保管基金财产。');
  });

  it('draws a spinner only on a terminal that reports its width, outside CI and --quiet', () => {
    const streams = (isTTY: boolean, columns: number | undefined, env: NodeJS.ProcessEnv = {}) => {
      const err = stream(isTTY).s;
      Object.assign(err, { columns });
      return { stdout: stream(isTTY).s, stderr: err, env };
    };
    assert.equal(showsSpinner(streams(true, 120), { quiet: false }), true);
    // A pseudo-terminal without a size: the spinner would never finish clearing its line.
    assert.equal(showsSpinner(streams(true, 0), { quiet: false }), false);
    assert.equal(showsSpinner(streams(true, undefined), { quiet: false }), false);
    assert.equal(showsSpinner(streams(false, 120), { quiet: false }), false);
    assert.equal(showsSpinner(streams(true, 120, { CI: 'true' }), { quiet: false }), false);
    assert.equal(showsSpinner(streams(true, 120), { quiet: true }), false);
  });
});
