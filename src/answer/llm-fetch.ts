/**
 * The HTTP layer under the LLM client: a `fetch` for the `openai` package that reads the whole reply inside the
 * attempt's time bound and stops at a byte cap, so a server that sends headers and then stalls, or streams
 * megabytes of junk, can neither hang nor flood the tool. It also makes base URLs with credentials work
 * (`http://user:pass@host/v1`), which Node's own fetch rejects.
 */

/** Default cap on a reply body: a chat answer or an agent turn is a few kB. */
export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;

/** Thrown by the bounded fetch when a reply is larger than the cap. */
export class ReplyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the reply is larger than ${limit} bytes`);
    this.name = 'ReplyTooLargeError';
  }
}

/** What one HTTP attempt got to, so a timeout can say whether the server answered at all. */
export interface AttemptState {
  headers: boolean;
  bytes: number;
}

/**
 * A `fetch` that reads the whole body before returning, up to `maxBytes`, so the attempt's abort signal (and
 * openai's own timeout, which stops at headers) covers the body too. Credentials in the URL are not allowed by
 * fetch: they are removed from the URL and, when no API key is set (`useUrlCredentials`), sent as a Basic
 * `Authorization` header instead.
 */
export function boundedFetch(state: AttemptState, maxBytes: number, useUrlCredentials: boolean): typeof fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    if (url.username || url.password) {
      if (useUrlCredentials)
        headers.set(
          'authorization',
          `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`,
        );
      url = new URL(url.href);
      url.username = '';
      url.password = '';
    }
    const response = await fetch(url, { ...init, headers });
    state.headers = true;
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new ReplyTooLargeError(maxBytes);
    }
    const parts: Uint8Array[] = [];
    if (response.body) {
      const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        state.bytes += value.byteLength;
        if (state.bytes > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new ReplyTooLargeError(maxBytes);
        }
        parts.push(value);
      }
    }
    const body = [101, 204, 205, 304].includes(response.status) ? null : Buffer.concat(parts);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
