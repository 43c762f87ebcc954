/**
 * OWASP's CSV-injection rule for text written into CSV files: a CSV cell that starts with `=`, `+`, `-`, `@`, a tab or
 * a carriage return is parsed by Excel, LibreOffice and Sheets like typed text, that is as a formula, so a question or
 * option copied from a dataset could run one on the reader's machine. A leading `'` makes it plain text. Not for
 * XLSX: a string cell there is never evaluated, and the quote would be stored as a visible character.
 */
export function spreadsheetText(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
