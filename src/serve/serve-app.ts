import { Hono } from 'hono';
import { register as registerGuards } from './guards.js';
import { register as registerApi } from './routes/api.js';
import { register as registerFiles } from './routes/files.js';
import { register as registerPages } from './routes/pages.js';
import type { ServeContext } from './serve-context.js';

/** Options of the web application. */
export interface ServeAppOptions {
  context: ServeContext;
  /** Host names a request's Host header may carry; others are refused (DNS-rebinding guard). Empty: any. */
  allowedHosts: readonly string[];
}

/**
 * The web application: server-rendered pages that work without JavaScript, a JSON API, and the allow-listed
 * source and report files. Every handler validates its input; no path from a URL reaches the file system; routes
 * that answer refuse requests from other sites (`guards.ts`).
 */
export function createServeApp(options: ServeAppOptions): Hono {
  const app = new Hono();
  registerGuards(app, { allowedHosts: options.allowedHosts });
  registerPages(app, options.context);
  registerFiles(app, options.context);
  registerApi(app, options.context);
  return app;
}
