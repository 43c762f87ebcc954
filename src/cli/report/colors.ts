/**
 * Terminal colours for the reporters: SGR sequences around a text, or the text unchanged when colour is off.
 * Written here rather than loaded from a colour library because the one in use took about 10 ms to import, a
 * twentieth of an offline answer, for the seven styles below.
 */
export interface Colors {
  /** Whether the styles add escape sequences (a TTY without NO_COLOR). */
  readonly enabled: boolean;
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
  readonly magenta: (text: string) => string;
}

type Style = (text: string) => string;

/**
 * One style: `open` text `close`. A close inside the text (a nested style of the same kind ending) is followed by
 * `open` again so the outer style goes on, and each line is closed and reopened, so a style never leaks past a
 * line break into a pager or the next prompt.
 */
function style(open: number, close: number): Style {
  const on = `\u001b[${open}m`;
  const off = `\u001b[${close}m`;
  return (text) => {
    const body = text.split(off).join(off + on);
    return on + body.replace(/(\r?\n)/g, `${off}$1${on}`) + off;
  };
}

const plain: Style = (text) => text;

/** The styles, adding escape sequences only when `enabled`. */
export function createColors(enabled: boolean): Colors {
  const s = (open: number, close: number): Style => (enabled ? style(open, close) : plain);
  return {
    enabled,
    bold: s(1, 22),
    dim: s(2, 22),
    red: s(31, 39),
    green: s(32, 39),
    yellow: s(33, 39),
    cyan: s(36, 39),
    magenta: s(35, 39),
  };
}
