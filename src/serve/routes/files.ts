import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Context, Hono } from 'hono';
import { reportCsp, RequestError } from '../guards.js';
import { pdfjsFile, REPORTS_FOLDER, servedReports, servedSources, webAsset } from '../served-files.js';
import type { ServeContext } from '../serve-context.js';

/** Links back to the app, put at the top of a served HTML report (styled inline: the report allows no stylesheet). */
const REPORT_APP_LINKS =
  '<nav class="app-links" style="font-size:13px;margin:0 0 8px"><a href="/">← exam-copilot 提问 Ask</a> · <a href="/reports">报告 Reports</a></nav>';

/** A report's HTML with the app links right after its `<body>` tag (unchanged when it has none). */
export function withAppLinks(html: string): string {
  return html.replace(/<body[^>]*>/i, (tag) => `${tag}\n${REPORT_APP_LINKS}`);
}

/** A single byte range `bytes=a-b`, `bytes=a-` or `bytes=-n` resolved against the size; null when unsatisfiable. */
export function byteRange(header: string, size: number): { start: number; end: number } | null | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges or another unit: answer with the whole file, as HTTP allows.
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const [first, last] = [m[1] ?? '', m[2] ?? ''];
  if (first === '') {
    const n = Number(last);
    return n > 0 && size > 0 ? { start: Math.max(0, size - n), end: size - 1 } : null;
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start < size && start <= end ? { start, end } : null;
}

/**
 * Streams a file instead of reading it whole, honouring a single `Range` (pdf.js fetches a large PDF's pages by
 * range, so a view does not download, nor the server hold, the whole book).
 */
async function streamFile(c: Context, file: string, type: string): Promise<Response> {
  const { size } = await stat(file);
  const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': 'no-cache', 'Accept-Ranges': 'bytes' };
  const header = c.req.header('range');
  const range = header ? byteRange(header, size) : undefined;
  if (range === null) return c.body(null, 416, { ...headers, 'Content-Range': `bytes */${size}` });
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (size === 0) return c.body(null, 200, { ...headers, 'Content-Length': '0' });
  const body = Readable.toWeb(createReadStream(file, { start, end })) as ReadableStream<Uint8Array>;
  headers['Content-Length'] = String(end - start + 1);
  if (!range) return c.body(body, 200, headers);
  return c.body(body, 206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}` });
}

/** The script hashes an eval report's own CSP allows (its filter script), read from the report's head. */
export function reportScriptHashes(html: string): string[] {
  const head = html.slice(0, Math.max(0, html.indexOf('<body')));
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/i.exec(head)?.[1] ?? '';
  const scripts = /(?:^|;)\s*script-src ([^;]*)/.exec(meta)?.[1] ?? '';
  return [...scripts.matchAll(/'(sha256-[A-Za-z0-9+/]{43}=)'/g)].map((m) => m[1] ?? '');
}

/** Sources by manifest id, eval reports by name, pdf.js and the page's own assets: never a path from the URL. */
export function register(app: Hono, context: ServeContext): void {
  app.get('/files/:id', async (c) => {
    const doc = servedSources(context.root).find((s) => s.id === c.req.param('id'));
    if (!doc) throw new RequestError(404, 'no such document');
    return streamFile(c, doc.file, doc.kind === 'pdf' ? 'application/pdf' : 'text/plain; charset=utf-8');
  });

  app.get('/reports/:name', async (c) => {
    const name = c.req.param('name');
    const report = servedReports(context.root).find((r) => r.name === name);
    if (!report) throw new RequestError(404, `no report named "${name}" in ${REPORTS_FOLDER}/`);
    const file = await readFile(report.file);
    // An HTML report is one file that also works opened from disk; served here it gets a way back to the app.
    const body = report.type === 'html' ? Buffer.from(withAppLinks(file.toString('utf8'))) : file;
    const type =
      report.type === 'html'
        ? 'text/html; charset=utf-8'
        : report.type === 'json'
          ? 'application/json; charset=utf-8'
          : 'text/plain; charset=utf-8';
    // An HTML report runs its own filter script, which its own CSP allows by hash; nothing else may run.
    const hashes = report.type === 'html' ? reportScriptHashes(body.toString('utf8')) : [];
    return c.body(body, 200, { 'Content-Type': type, 'Content-Security-Policy': reportCsp(hashes) });
  });

  app.get('/vendor/pdfjs/*', async (c) => {
    const file = pdfjsFile(c.req.path.slice('/vendor/pdfjs/'.length));
    if (!file) throw new RequestError(404, 'no such file');
    const type = file.endsWith('.mjs') ? 'text/javascript; charset=utf-8' : 'application/octet-stream';
    return c.body(await readFile(file), 200, { 'Content-Type': type, 'Cache-Control': 'max-age=3600' });
  });

  app.get('/assets/:name', async (c) => {
    const asset = webAsset(c.req.param('name'));
    if (!asset) throw new RequestError(404, 'no such asset');
    return c.body(await readFile(asset.file), 200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
  });
}
