/**
 * Names that say which process on which machine made a temp file or folder, so that a later
 * process can remove what a killed one (SIGKILL, the OOM killer) could not: spill run folders
 * and atomic output temps. Only this machine's dead processes are judged: a folder may be
 * shared over the network, and another machine's pid means nothing here.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * This machine, as it appears in temp names: its name's letters and digits (readable) and a
 * hash of the whole name, so that names differing only in punctuation (ip-10-1-11-5,
 * ip-10-11-1-5) stay apart.
 */
export const HOST = `${hostname().replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}${createHash('sha256').update(hostname()).digest('hex').slice(0, 8)}`;

/** `<host>-<pid>`: this process, as it appears in temp names. */
export const OWNER = `${HOST}-${process.pid}`;

/** A regular-expression source that matches an OWNER and captures its host and pid. */
export const OWNER_PATTERN = '([A-Za-z0-9]+)-(\\d+)';

/** Whether a temp named for `host` and `pid` belongs to a process of this machine that has ended. */
export function ownerGone(host: string, pid: number): boolean {
  if (host !== HOST || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EPERM'; // EPERM: it exists, another user's
  }
}

/**
 * How long a dead owner's temp must have gone untouched before it is removed: a process in
 * another PID namespace with the same host name (containers of one pod) looks dead from here
 * while it still writes.
 */
export const STALE_AFTER_MS = 10 * 60_000;

/** Whether `path` and everything under it were last modified before `ms` ago (false if unreadable). */
export async function untouchedFor(path: string, ms: number): Promise<boolean> {
  const before = Date.now() - ms;
  const walk = async (p: string): Promise<boolean> => {
    const st = await lstat(p);
    if (st.mtimeMs >= before) return false;
    if (!st.isDirectory()) return true;
    for (const name of await readdir(p)) if (!(await walk(join(p, name)))) return false;
    return true;
  };
  return walk(path).catch(() => false);
}
