import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadTableCsv } from '../../src/ingest/load-table-csv.js';

describe('table transcriptions with bad rows', () => {
  it('warns about a row with empty content at its own line, also after a blank line and a multi-line cell, LF or CRLF', () => {
    const csv = [
      'book,chapter,section,figure_ref,content',
      '上册,第一章,第一节,表1-1,内容',
      '',
      '上册,第一章,第一节,表1-2,',
      '上册,第一章,第一节,表1-3,"多行',
      '内容"',
      '上册,第一章,第一节,表1-4,  ',
      '',
    ].join('\n');
    for (const text of [csv, csv.replace(/\n/g, '\r\n')]) {
      const { rows, warnings } = loadTableCsv(Buffer.from(text), 'rawdoc/table_explain.csv');
      assert.deepEqual(
        rows.map((r) => [r.figure_ref, r.line]),
        [
          ['表1-1', 2],
          ['表1-3', 5],
        ],
      );
      assert.deepEqual(warnings, [
        { where: 'rawdoc/table_explain.csv:4', message: 'row has no content; skipped' },
        { where: 'rawdoc/table_explain.csv:7', message: 'row has no content; skipped' },
      ]);
    }
  });

  it('reads the same encodings as validation sets (one decoder): UTF-16LE with BOM', () => {
    const text = 'book,chapter,section,figure_ref,content\n上册,第一章,第一节,表1-1,内容\n';
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { rows, encoding } = loadTableCsv(bytes, 't.csv');
    assert.equal(encoding, 'utf-16le');
    assert.deepEqual(
      rows.map((r) => r.content),
      ['内容'],
    );
  });
});
