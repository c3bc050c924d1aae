/**
 * Names that say which process on which machine made a temp file or folder, so that a later
 * process can remove what a killed one (SIGKILL, the OOM killer) could not: spill run folders
 * and atomic output temps. Only this machine's dead processes are judged: a folder may be
 * shared over the network, and another machine's pid means nothing here.
 */
import { hostname } from 'node:os';

/** This machine, as it appears in temp names. */
export const HOST = hostname().replace(/[^A-Za-z0-9]/g, '').slice(0, 32) || 'host';

/** `<host>-<pid>`: this process, as it appears in temp names. */
export const OWNER = `${HOST}-${process.pid}`;

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
