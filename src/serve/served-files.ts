import { readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { readManifest, type SourceKind } from '../store/manifest.js';
import { packageFile, projectPaths } from '../paths.js';

/** A source document the page may show: its id in URLs is a digest prefix, never a path. */
export interface ServedSource {
  id: string;
  /** Path relative to the root, as in chunks (`rawdoc/上册.pdf`). */
  source: string;
  kind: SourceKind;
  book: string;
  /** Absolute real path, checked to lie inside `rawdoc/`. */
  file: string;
}

/** The folder under the root whose HTML/Markdown/JSON reports `/reports` lists (`eval --report-html reports/x.html`). */
export const REPORTS_FOLDER = 'reports';

/** True when `child` is `parent` or inside it (both absolute, already resolved). */
function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of `file` when it exists as a regular file inside `folder` after following links, else null. */
export function realFileInside(folder: string, file: string): string | null {
  try {
    const realFolder = realpathSync(folder);
    const real = realpathSync(file);
    if (!isInside(realFolder, real) || !statSync(real).isFile()) return null;
    return real;
  } catch {
    return null;
  }
}

/**
 * The allow-list of source documents, from the ingest manifest: only files that were ingested successfully, that
 * still exist, and whose real path (links followed) lies inside the root's `rawdoc/`. A URL names a document by its
 * id, so no path from a request ever reaches the file system.
 */
export function servedSources(root: string): ServedSource[] {
  const paths = projectPaths(root);
  const manifest = readManifest(paths.manifest);
  if (!manifest) return [];
  const out: ServedSource[] = [];
  for (const s of manifest.sources) {
    if (s.status !== 'ok' || s.kind === 'csv') continue;
    const file = realFileInside(paths.rawdoc, path.join(paths.root, s.source));
    if (!file) continue;
    out.push({ id: s.sha256.slice(0, 16), source: s.source, kind: s.kind, book: s.book, file });
  }
  return out;
}

/** A report file found in the root's report folder. */
export interface ServedReport {
  name: string;
  file: string;
  type: 'html' | 'md' | 'json';
}

const REPORT_TYPES: Readonly<Record<string, ServedReport['type']>> = { '.html': 'html', '.md': 'md', '.json': 'json' };

/** Reports directly inside `<root>/reports/` (HTML, Markdown, JSON), newest name first; links pointing out are skipped. */
export function servedReports(root: string): ServedReport[] {
  const folder = path.join(path.resolve(root), REPORTS_FOLDER);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const out: ServedReport[] = [];
  for (const name of names.sort().reverse()) {
    const type = REPORT_TYPES[path.extname(name).toLowerCase()];
    if (!type) continue;
    const file = realFileInside(folder, path.join(folder, name));
    if (file) out.push({ name, file, type });
  }
  return out;
}

/** The pdf.js files the viewer loads, by URL path below `/vendor/pdfjs/` (a fixed pattern: no traversal possible). */
const PDFJS_FILE = /^(build\/pdf(?:\.worker)?\.min\.mjs|cmaps\/[A-Za-z0-9_.-]+\.bcmap|standard_fonts\/[A-Za-z0-9_.-]+\.(?:pfb|ttf))$/;

/** Resolves a `/vendor/pdfjs/…` path to the file inside the installed pdfjs-dist, or null when not allowed. */
export function pdfjsFile(rel: string): string | null {
  if (!PDFJS_FILE.test(rel)) return null;
  const pkg = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return realFileInside(pkg, path.join(pkg, rel));
}

/** The page's own static files (style and the viewer script), shipped in the package's `web/` folder. */
const WEB_ASSETS: Readonly<Record<string, string>> = {
  'style.css': 'text/css; charset=utf-8',
  'viewer.js': 'text/javascript; charset=utf-8',
  'note.js': 'text/javascript; charset=utf-8',
};

/** Resolves `/assets/<name>` to a file of the package's `web/` folder with its content type, or null. */
export function webAsset(name: string): { file: string; type: string } | null {
  const type = WEB_ASSETS[name];
  if (!type) return null;
  return { file: packageFile('web', name), type };
}
