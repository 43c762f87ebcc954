/**
 * Whether a process with this id runs on this machine. `kill(pid, 0)` sends nothing and only checks: EPERM means
 * the process exists but belongs to another user, so it counts as alive. The one check used by every lock
 * holder test (the ingest lock, an interrupted index swap).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
