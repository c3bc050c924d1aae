/**
 * Paths a run creates and must not leave behind (spill folders, output temp files and folders,
 * the CLI's copy of stdin), removed synchronously when the process exits: the normal paths
 * remove them themselves; this covers `process.exit` mid-run (the CLI's second Ctrl-C, a host
 * that exits while a run is under way). A SIGKILL still leaves them behind.
 */
import { rmSync } from 'node:fs';

const live = new Set<string>();
let hooked = false;

/** Removes `path` (file or folder) at process exit unless `forget` is called first. */
export function removeAtExit(path: string): { forget(): void } {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const p of live) {
        try {
          rmSync(p, { recursive: true, force: true });
        } catch {
          // best effort: the process is ending
        }
      }
      live.clear();
    });
  }
  live.add(path);
  return { forget: () => live.delete(path) };
}
