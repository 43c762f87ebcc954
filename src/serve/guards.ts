import type { Context, Hono, MiddlewareHandler } from 'hono';
import { NotReadyError, UserError } from '../errors.js';
import { errorPage } from './html-pages.js';

/** Pages load only their own scripts, styles and the PDF; nothing from elsewhere (the page works offline). */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self' data: blob:; connect-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Eval reports are self-contained HTML with inline styles and SVG; they may run only the inline scripts whose hashes
 * they declare themselves (the report's filter script), and load nothing.
 */
export function reportCsp(scriptHashes: readonly string[] = []): string {
  const scripts = scriptHashes.length > 0 ? `; script-src ${scriptHashes.map((h) => `'${h}'`).join(' ')}` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:${scripts}; base-uri 'none'; frame-ancestors 'none'`;
}

/** A request the server refuses with a status and a message the caller can act on. */
export class RequestError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 413 | 415 | 503,
    message: string,
  ) {
    super(message);
  }
}

/** What the guards need to know about the server. */
export interface GuardOptions {
  /** Host names a request's Host header may carry; others are refused (DNS-rebinding guard). Empty: any. */
  allowedHosts: readonly string[];
}

/** True for the JSON API, whose errors are JSON; pages get HTML or one line of text. */
export function isApi(c: Context): boolean {
  return c.req.path.startsWith('/api/');
}

function refuse(c: Context, status: 403 | 415, message: string): Response {
  return isApi(c) ? c.json({ error: message }, status) : c.text(message, status);
}

/**
 * Why a request comes from another site, or null when it does not. Browsers say where a request comes from in
 * `Sec-Fetch-Site` (every current browser) and, for POSTs and scripted requests, in `Origin`; a page elsewhere can
 * send simple requests (a GET link, a form POST with text/plain) to this server without any CORS preflight, and
 * although it cannot read the answer, it could make the server spend the user's LLM budget.
 */
export function crossSiteReason(c: Context): string | null {
  const site = c.req.header('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return `a request from another site (Sec-Fetch-Site: ${site})`;
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    // The page's own requests carry its origin, which is this server's address as the Host header names it.
    const own = `http://${(c.req.header('host') ?? '').toLowerCase()}`;
    if (origin.toLowerCase() !== own) return `a request from another origin (${origin.slice(0, 100)})`;
  }
  return null;
}

/** True when the request is a navigation the user made on this server's page or in the address bar. */
export function sameOriginNavigation(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  return site === 'same-origin' || site === 'none';
}

/**
 * Refuses cross-site requests (403) on routes that answer or spend the LLM budget, and POSTs whose body is not
 * declared JSON (415): `text/plain` is what a cross-site form may send without a preflight.
 */
export const refuseCrossSite: MiddlewareHandler = async (c, next) => {
  const reason = crossSiteReason(c);
  if (reason) return refuse(c, 403, `refused ${reason}; ask from the page this server serves`);
  if (c.req.method === 'POST') {
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') return refuse(c, 415, `send the body as Content-Type: application/json, not "${type || 'none'}"`);
  }
  await next();
};

/**
 * The guards every request passes: the Host check (on loopback, a page elsewhere cannot reach the server through DNS
 * rebinding), security headers and the CSP on every answer, and errors turned into a status and a message (500s
 * hide the details, which go to the server log).
 */
export function register(app: Hono, options: GuardOptions): void {
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  app.use('*', async (c, next) => {
    if (allowed.size > 0) {
      const host = (c.req.header('host') ?? '').toLowerCase().replace(/:\d+$/, '');
      if (!allowed.has(host)) {
        return c.text(`host "${host}" is not served here; open the address the server printed`, 403);
      }
    }
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', PAGE_CSP);
  });

  app.onError((error, c) => {
    let status: 400 | 403 | 404 | 413 | 415 | 500 | 503 = 500;
    let message = 'internal error; the server log has the details';
    if (error instanceof RequestError) [status, message] = [error.status, error.message];
    else if (error instanceof NotReadyError) [status, message] = [503, error.message];
    else if (error instanceof UserError) [status, message] = [400, error.message];
    else process.stderr.write(`exam-copilot serve: ${error.stack ?? error.message}\n`);
    if (isApi(c)) return c.json({ error: message }, status);
    return c.html(
      errorPage(status === 503 ? '尚未就绪 Not ready' : status === 500 ? '出错了 Error' : '请求有误 Bad request', message),
      status,
    );
  });
  app.notFound((c) =>
    isApi(c)
      ? c.json({ error: `no such endpoint: ${c.req.method} ${c.req.path}` }, 404)
      : c.html(errorPage('未找到 Not found', `nothing at ${c.req.path}`), 404),
  );
}
