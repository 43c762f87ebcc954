/**
 * OWASP's CSV-injection rule for text written into spreadsheets (CSV or XLSX): a cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return is read by Excel, LibreOffice and Sheets as a formula, so a question or
 * option copied from a dataset could run one on the reader's machine. A leading `'` makes it plain text; the
 * spreadsheet hides the quote, so the reader sees the original text.
 */
export function spreadsheetText(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
