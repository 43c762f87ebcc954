import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { jsonLines } from '../../src/json-lines.js';
import { makeTempRoot } from '../helpers/temp-root.js';

void describe('jsonLines', () => {
  void it('reads every value of a file several blocks long, with characters cut across block edges, skipping blank lines', () => {
    const tmp = makeTempRoot();
    try {
      // Three-byte characters in lines of varying length, so block edges fall inside characters and inside lines.
      const values = Array.from({ length: 30_000 }, (_, i) => ({ i, text: '基金托管人应当'.repeat(1 + (i % 13)), odd: i % 2 === 1 }));
      const file = path.join(tmp.root, 'values.jsonl');
      writeFileSync(file, `${values.map((v, i) => JSON.stringify(v) + (i % 1000 === 0 ? '\n\n' : '\n')).join('')}`);
      assert.deepEqual([...jsonLines(file)], values);
      // A last line without its newline.
      const bare = path.join(tmp.root, 'bare.jsonl');
      writeFileSync(bare, '{"a":1}\n{"a":2}');
      assert.deepEqual([...jsonLines(bare)], [{ a: 1 }, { a: 2 }]);
    } finally {
      tmp.cleanup();
    }
  });
});
