/** Escaping of untrusted text for the terminal; no dependencies, so the CLI entry can use it without loading the UI. */

/** Characters a terminal acts on: C0 controls (ESC, CR, BEL, backspace, newlines…), DEL, C1 controls, bidi overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
/** The same minus tab and newline, plus the SGR colour sequences of `colors.ts`, which are let through. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_OR_SGR = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Text from files (file names, PDF titles, headings) as a terminal should show it: every control character,
 * newlines included, written as an escape (`\x1b`, `\x0a`), so a crafted name cannot move the cursor, recolour
 * the screen, retitle the window or break a one-line message into several.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, escapeChar);
}

/** The last line of defence for whole output lines: escapes controls except newline, tab and the reporters' colours. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL_OR_SGR, (m) => (m.length > 1 ? m : escapeChar(m)));
}
