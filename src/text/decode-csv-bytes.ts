import iconv from 'iconv-lite';

/**
 * Decodes CSV bytes: BOM-marked UTF-8/UTF-16LE, else UTF-8 when the bytes are valid UTF-8, else GB18030 (a superset
 * of GBK, what Excel on a Chinese system writes). The one decoder for every CSV the project reads (validation
 * sets, table transcriptions), so both accept the same files.
 */
export function decodeCsvBytes(bytes: Buffer): { text: string; encoding: string } {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: bytes.subarray(3).toString('utf8'), encoding: 'utf-8-bom' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return { text: iconv.decode(bytes.subarray(2), 'utf-16le'), encoding: 'utf-16le' };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: iconv.decode(bytes, 'gb18030'), encoding: 'gb18030' };
  }
}
