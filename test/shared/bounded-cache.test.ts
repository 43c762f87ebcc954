import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoizeShortText } from '../../src/bounded-cache.js';

describe('memoizeShortText', () => {
  it('computes a short text once while it is held, a long text every time, and drops the oldest past its size', () => {
    const calls: string[] = [];
    const upper = memoizeShortText(
      (text) => {
        calls.push(text);
        return text.toUpperCase();
      },
      5,
      2,
    );
    assert.equal(upper('ab'), 'AB');
    assert.equal(upper('ab'), 'AB');
    assert.equal(upper('abcdef'), 'ABCDEF');
    assert.equal(upper('abcdef'), 'ABCDEF');
    assert.deepEqual(calls, ['ab', 'abcdef', 'abcdef']);
    // Two more short texts: 'ab', the oldest, is dropped and computed again.
    upper('cd');
    upper('ef');
    upper('ef');
    upper('ab');
    assert.deepEqual(calls.slice(3), ['cd', 'ef', 'ab']);
  });
});
