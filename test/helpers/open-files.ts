import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** True where this process's open files can be listed (Linux `/proc/self/fd`). */
export const canListOpenFiles = existsSync('/proc/self/fd');

/**
 * The files this process holds open whose name is `name` and whose path contains `under`, as the kernel names them
 * (a file removed since it was opened ends in " (deleted)"). Tests count the index handles a long-lived reader keeps:
 * a leaked or never-closed index generation shows up here, whatever the code believes it closed.
 */
export function openFilesNamed(name: string, under: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(path.join('/proc/self/fd', fd));
    } catch {
      continue; // closed between the listing and the read
    }
    const file = target.replace(/ \(deleted\)$/, '');
    if (path.basename(file) === name && file.includes(under)) out.push(target);
  }
  return out;
}
