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
