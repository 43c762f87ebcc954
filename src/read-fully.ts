import { readSync } from 'node:fs';

/**
 * `length` bytes at `position` of an open file into `into` at `offset`, however many reads that takes (a read may
 * return fewer bytes than asked). A file that ends first is an error naming `what` and where it ended.
 */
export function readFully(fd: number, into: Uint8Array, offset: number, length: number, position: number, what = 'the file'): void {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, offset + done, length - done, position + done);
    if (n === 0) throw new Error(`${what} ended at byte ${position + done}, ${length - done} bytes early`);
    done += n;
  }
}
