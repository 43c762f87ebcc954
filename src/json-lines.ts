import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes read at a time: a library's `chunks.jsonl` is tens of megabytes, of which only a block is held at once. */
const BLOCK_BYTES = 1 << 20;

/**
 * The values of a JSON-lines file, one per non-blank line, read a block at a time rather than whole. Lines are split
 * on the newline byte, which never occurs inside a multi-byte UTF-8 character, so each line decodes whole.
 */
export function* jsonLines<T>(file: string): Generator<T> {
  const fd = openSync(file, 'r');
  try {
    const block = Buffer.alloc(BLOCK_BYTES);
    let carry = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, block, 0, BLOCK_BYTES, null);
      if (read === 0) break;
      const data = carry.length > 0 ? Buffer.concat([carry, block.subarray(0, read)]) : block.subarray(0, read);
      let start = 0;
      for (let end = data.indexOf(10, start); end !== -1; end = data.indexOf(10, start)) {
        const line = data.toString('utf8', start, end);
        start = end + 1;
        if (line.trim() !== '') yield JSON.parse(line) as T;
      }
      // A copy: `block` is read into again.
      carry = Buffer.from(data.subarray(start));
    }
    const last = carry.toString('utf8');
    if (last.trim() !== '') yield JSON.parse(last) as T;
  } finally {
    closeSync(fd);
  }
}
