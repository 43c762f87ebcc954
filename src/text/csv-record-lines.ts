/** What csv-parse returns per record with `{ info: true, raw: true }`, as far as line numbers go. */
export interface CsvRecordPosition {
  info: { lines: number };
  raw: string;
}

/**
 * The 1-based line where each record starts, for warnings that name `file:line`. csv-parse reports where a record
 * ends (`info.lines`); a quoted field can span lines, and skipped blank lines before a record are part of its `raw`.
 * It also counts a CRLF inside a quoted field as two line breaks, which shifts every later record, so that excess
 * is subtracted as it accumulates.
 */
export function csvRecordLines(records: readonly CsvRecordPosition[]): number[] {
  let excess = 0;
  return records.map(({ info, raw }) => {
    const body = raw.replace(/^[\r\n]+/, '').replace(/[\r\n]+$/, '');
    excess += body.match(/\r\n/g)?.length ?? 0;
    const breaksInside = body.match(/\r\n|\r|\n/g)?.length ?? 0;
    return info.lines - excess - breaksInside;
  });
}
