/**
 * Credential redaction shared by everything that prints, logs or stores text that may carry an endpoint's
 * secrets: API keys (which some servers echo back in error bodies or replies) and credentials written into a
 * base URL (`https://user:secret@host/v1`). Every writer (terminal, run files, reports, the LLM cache) goes
 * through these functions, so a new output path cannot forget one kind of secret.
 */

const MASK = '***';

/** A URL with any `user:password@` removed (`https://***@host/v1`); other text is returned unchanged. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i, `$1${MASK}@`);
}

/** The secrets of an endpoint: its API key and the user and password of its base URL, raw and percent-decoded. */
export function endpointSecrets(endpoint: { baseURL?: string | undefined; apiKey?: string | undefined } | null | undefined): string[] {
  if (!endpoint) return [];
  const out: string[] = [];
  if (endpoint.apiKey && endpoint.apiKey !== 'not-needed') out.push(endpoint.apiKey);
  const userinfo = endpoint.baseURL ? /^[a-z][a-z0-9+.-]*:\/\/([^/?#@\s]*)@/i.exec(endpoint.baseURL)?.[1] : undefined;
  if (userinfo) {
    for (const part of [userinfo, ...userinfo.split(':')]) {
      out.push(part);
      try {
        out.push(decodeURIComponent(part));
      } catch {
        // A malformed escape: the raw form is already listed.
      }
    }
  }
  // Short strings (a user name like "a") would mangle ordinary text; URL credentials are also caught by shape below.
  return [...new Set(out.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
}

/** Replaces every listed secret, and any `scheme://user:pass@` credentials, in `text` with `***`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s"'<>]*@/gi, `$1${MASK}@`);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join(MASK);
  return out;
}
