import { existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { UsageError, UserError } from '../errors.js';
import { projectPaths } from '../paths.js';
import { createServeApp } from './serve-app.js';
import { createServeContext } from './serve-context.js';

/** Options of `exam-copilot serve`. */
export interface ServeOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Interface to bind; loopback unless the user names another. */
  host: string;
  /** TCP port; 0 picks a free one (tests). */
  port: number;
  /** Evidence passages per question, as `ask --top-k`. */
  topK: number;
  /** On close, how long requests still running may take to finish before their connections are cut (default 10 s). */
  drainMs?: number;
}

/** A listening server. */
export interface RunningServer {
  /** The address to open, e.g. `http://127.0.0.1:8765/`. */
  url: string;
  host: string;
  port: number;
  /** True when the server listens on an interface other than loopback (anyone on the network can reach it). */
  exposed: boolean;
  /** True when the root has no index yet (pages say to run ingest). */
  indexMissing: boolean;
  /**
   * Stops accepting connections, lets the requests still running finish (up to `drainMs`), ends the connections,
   * and closes the index once no request uses it.
   */
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1', '[::1]'];

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.includes(host.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Starts the local web page over the root's index. On loopback, requests must name a loopback host (a page on
 * another site cannot reach the server through DNS rebinding); on another interface any host name is accepted.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const paths = projectPaths(options.root);
  if (!existsSync(paths.root) || !statSync(paths.root).isDirectory()) {
    throw new UserError(`${paths.root} is not a folder; pass --root with the folder holding rawdoc/, data/ and index/`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new UsageError(`--port must be a whole number from 1 to 65535 (0 picks a free one), got ${options.port}`);
  }
  const context = createServeContext({ root: options.root, config: options.config, topK: options.topK });
  const exposed = !isLoopback(options.host);
  const app = createServeApp({ context, allowedHosts: exposed ? [] : ['localhost', '127.0.0.1', '[::1]', '::1', options.host] });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, () => resolve(s));
    s.once('error', (error: NodeJS.ErrnoException) => {
      void context.close();
      if (error.code === 'EADDRINUSE')
        reject(new UsageError(`port ${options.port} on ${options.host} is in use; pass another with --port`));
      else if (error.code === 'EACCES')
        reject(new UsageError(`port ${options.port} on ${options.host} needs privileges; pass one above 1023 with --port`));
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
        reject(new UserError(`cannot listen on ${options.host}: no such local address; pass --host 127.0.0.1`));
      else reject(new UserError(`cannot listen on ${options.host}:${options.port}: ${error.message}`));
    });
  });
  // Requests still being answered, so close() can let them finish.
  let running = 0;
  let drained: (() => void) | null = null;
  server.on('request', (_req, res: ServerResponse) => {
    running++;
    res.once('close', () => {
      running--;
      if (running === 0) drained?.();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const drainMs = options.drainMs ?? 10_000;
  return {
    url: `http://${shownHost}:${address.port}/`,
    host: address.address,
    port: address.port,
    exposed,
    indexMissing: !existsSync(paths.ftsDb),
    async close() {
      // Stop accepting first; idle keep-alive connections go at once, busy ones after their answer.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      if (running > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs);
          timer.unref();
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      if ('closeAllConnections' in server) server.closeAllConnections();
      await closed;
      // The index closes when the last request using it ends (at once when none does); a request still running
      // after the drain (an LLM call within its deadline) is not waited for again.
      const timer = new Promise<void>((resolve) => setTimeout(resolve, drainMs).unref());
      await Promise.race([context.close(), timer]);
    },
  };
}
