import path from 'node:path';

/**
 * The book a file belongs to: `config.books[fileName]` when set; else the volume token in the file stem
 * (上册/中册/下册, 第N册, 卷N); else the whole stem.
 */
export function bookName(file: string, overrides: Readonly<Record<string, string>>): string {
  const base = path.basename(file);
  const override = overrides[base] ?? overrides[file];
  if (override) return override;
  const stem = base.replace(/\.[^.]+$/u, '');
  const m = /(上册|中册|下册|第[一二三四五六七八九十\d]+册|卷[一二三四五六七八九十\d]+)/u.exec(stem);
  return m?.[1] ?? stem;
}
