import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * `new Worker(url, options)` with the process's own Node flags (`workerExecArgv`), less those a worker refuses. Node
 * refuses V8's flags and per-process ones in a worker's `execArgv` (`node --max-old-space-size=4096 …`, `--no-liftoff`,
 * `--stack-size`) and names them in the error it throws at once; they are process-wide and already in force, so the
 * worker starts without them instead of the command ending with an internal error. Should the error not name them,
 * the worker starts with no flags.
 */
export function startWorker(url: URL, options: Omit<WorkerOptions, 'execArgv'> = {}): Worker {
  const execArgv = workerExecArgv();
  try {
    return new Worker(url, { ...options, execArgv });
  } catch (error) {
    if (!isInvalidExecArgv(error)) throw error;
    try {
      return new Worker(url, { ...options, execArgv: withoutRefused(execArgv, error.message) });
    } catch (again) {
      if (!isInvalidExecArgv(again)) throw again;
      return new Worker(url, { ...options, execArgv: [] });
    }
  }
}

function isInvalidExecArgv(error: unknown): error is Error & { code: string } {
  return error instanceof Error && (error as { code?: unknown }).code === 'ERR_WORKER_INVALID_EXEC_ARGV';
}

/** `argv` less the flags the error lists ("… invalid execArgv flags: --a=1, --b"; V8 takes a value only after `=`). */
export function withoutRefused(argv: readonly string[], message: string): string[] {
  const listed = message.split('flags:')[1];
  if (listed === undefined) return [];
  const refused = new Set(listed.split(',').map((f) => f.trim()));
  return argv.filter((arg) => !refused.has(arg));
}

/**
 * The Node flags every worker thread of the project is started with: the process's own (a worker inherits them by
 * default), less `--input-type`, which Node refuses for a worker, so that a program run as
 * `node --input-type=module -e …` can still ingest, search and evaluate.
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) kept.push(arg);
  }
  return kept;
}
