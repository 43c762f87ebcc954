import type oraModule from 'ora';
import type { Ora } from 'ora';
import type { GlobalOptions } from '../global-options.js';
import { createColors, type Colors } from './colors.js';
import { printable, terminalSafe } from './printable.js';
import { importPackage } from '../../import-package.js';

export { printable } from './printable.js';

/**
 * The one place that writes to the terminal. Commands return data; reporters turn it into text,
 * JSON on stdout (`--json`), or progress on stderr. Colour and spinners only on a TTY and without NO_COLOR.
 */
export interface Ui {
  readonly color: Colors;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Result text on stdout (suppressed with --json: use `printJson`). */
  out(text: string): void;
  /** Machine output on stdout. */
  printJson(value: unknown): void;
  /** One compact JSON value per line on stdout (JSONL streams, e.g. piped `ask --json`). */
  printJsonLine(value: unknown): void;
  /** Informational message on stderr (suppressed by --quiet). */
  info(text: string): void;
  /** Warning on stderr (shown even with --quiet). */
  warn(text: string): void;
  /** A failure that did not stop the command (e.g. one unreadable file), on stderr. */
  error(text: string): void;
  /** Detail shown only with --verbose. */
  debug(text: string): void;
  /** A spinner on a TTY; elsewhere a no-op that still accepts updates. */
  spinner(text: string): Progress;
}

export interface Progress {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
  stop(): void;
}

export interface UiStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/**
 * Whether progress is drawn as a spinner that rewrites its line: on a terminal, not quiet, not in CI, and only when the
 * terminal reports its width. A pseudo-terminal without a size (`script`, some CI runners) reports 0 columns, and the
 * spinner library then counts its line as infinitely many rows to clear and never finishes; lines are printed instead.
 */
export function showsSpinner(streams: UiStreams, globals: Pick<GlobalOptions, 'quiet'>): boolean {
  return (
    streams.stderr.isTTY === true &&
    !globals.quiet &&
    streams.env.CI !== 'true' &&
    typeof streams.stderr.columns === 'number' &&
    streams.stderr.columns > 0
  );
}

export function createUi(
  globals: Pick<GlobalOptions, 'json' | 'quiet' | 'verbose'>,
  streams: UiStreams = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Ui {
  const noColor = streams.env.NO_COLOR !== undefined && streams.env.NO_COLOR !== '';
  const color = createColors(!noColor && streams.stdout.isTTY === true);
  const errColor = createColors(!noColor && streams.stderr.isTTY === true);
  const interactive = showsSpinner(streams, globals);
  const write = (stream: NodeJS.WriteStream, raw: string): void => {
    const text = terminalSafe(raw);
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  return {
    color,
    json: globals.json,
    quiet: globals.quiet,
    verbose: globals.verbose,
    out(text) {
      if (!globals.json) write(streams.stdout, text);
    },
    printJson(value) {
      write(streams.stdout, JSON.stringify(value, null, 2));
    },
    printJsonLine(value) {
      write(streams.stdout, JSON.stringify(value));
    },
    info(text) {
      if (!globals.quiet) write(streams.stderr, text);
    },
    warn(text) {
      write(streams.stderr, errColor.yellow(`warning: ${printable(text)}`));
    },
    error(text) {
      write(streams.stderr, errColor.red(`error: ${printable(text)}`));
    },
    debug(text) {
      if (globals.verbose) write(streams.stderr, errColor.dim(text));
    },
    spinner(text) {
      if (!interactive) {
        return {
          update: () => undefined,
          succeed: (t) => {
            if (!globals.quiet) write(streams.stderr, t);
          },
          fail: (t) => write(streams.stderr, t),
          stop: () => undefined,
        };
      }
      // ora (through string-width's Intl.Segmenter) takes about 0.1 s to load, a third of the CLI's own start-up, so
      // it loads only when a spinner is shown, and the spinner starts when it has loaded. Updates made before are
      // kept; a step that ends before then prints its line as off a terminal.
      let s: Ora | null = null;
      let current = text;
      let ended = false;
      void importPackage<{ default: typeof oraModule }>('ora').then(({ default: ora }) => {
        if (!ended) s = ora({ text: current, stream: streams.stderr, color: 'cyan', isEnabled: true }).start();
      });
      const end = (): Ora | null => {
        ended = true;
        return s;
      };
      return {
        update: (t) => {
          current = printable(t);
          if (s) s.text = current;
        },
        succeed: (t) => {
          const spinning = end();
          if (spinning) spinning.succeed(printable(t));
          else write(streams.stderr, t);
        },
        fail: (t) => {
          const spinning = end();
          if (spinning) spinning.fail(printable(t));
          else write(streams.stderr, t);
        },
        stop: () => {
          end()?.stop();
        },
      };
    },
  };
}
