/**
 * Per-run temp folders for spill files.
 *
 * `createRunDir(spillDir)` makes a fresh `sluice-run-<host>-<pid>-XXXXXX` folder (mkdtemp) under `spillDir`
 * (default os.tmpdir()); `file(prefix, ext)` hands out unique file paths inside it; `remove()`
 * deletes it recursively, is idempotent and never throws. Folders not removed yet are deleted
 * synchronously on process 'exit' (../io/exit-cleanup); a folder a SIGKILL left behind is
 * removed by the next run on this machine that spills there (its name holds the owner's pid).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlanError } from '../errors.js';
import { removeAtExit } from '../io/exit-cleanup.js';
import { OWNER, OWNER_PATTERN, ownerGone, STALE_AFTER_MS, untouchedFor } from '../io/process-owner.js';

export interface RunDir {
  readonly path: string;
  /** A path for a new file in this folder: `<prefix>-<n><ext>`, unique within the run. */
  file(prefix: string, ext?: string): string;
  /** Delete the folder and everything in it; idempotent, never throws. */
  remove(): Promise<void>;
}

function badSpillDir(spillDir: string, err: unknown): PlanError {
  return new PlanError(
    'BAD_SPILL_DIR',
    `Cannot create a run folder in spillDir ${spillDir}: ${err instanceof Error ? err.message : String(err)}`,
    { path: spillDir },
    { cause: err },
  );
}
class Dir implements RunDir {
  private seq = 0;
  private removed = false;
  private readonly atExit: { forget(): void };
  constructor(readonly path: string) {
    this.atExit = removeAtExit(path);
  }

  file(prefix: string, ext = ''): string {
    if (this.removed) throw new Error(`run folder ${this.path} was removed`);
    if (/[\\/]/.test(prefix) || /[\\/]/.test(ext)) throw new Error(`file prefix must not contain a path separator: ${prefix}${ext}`);
    this.seq++;
    return join(this.path, `${prefix}-${this.seq}${ext}`);
  }

  async remove(): Promise<void> {
    this.removed = true;
    try {
      await rm(this.path, { recursive: true, force: true, maxRetries: 2 });
      this.atExit.forget();
    } catch {
      // still registered: the exit hook tries again
    }
  }
}

/**
 * PlanError BAD_SPILL_DIR unless `spillDir` is a folder this process may write: checked when a
 * run starts, so a bad folder is reported before any row is read rather than at the first
 * spill, which only larger inputs reach.
 */
export function checkSpillDir(spillDir: string = tmpdir()): void {
  try {
    if (!statSync(spillDir).isDirectory()) throw new Error('not a folder');
    accessSync(spillDir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw badSpillDir(spillDir, err);
  }
}

/** `sluice-run-<host>-<pid>-XXXXXX`: the owner, so a later run can tell a dead one's folder. */
const RUN_DIR = new RegExp(`^sluice-run-${OWNER_PATTERN}-[A-Za-z0-9]{6}$`);
const swept = new Set<string>();

/**
 * Removes the run folders of processes of this machine that no longer exist (killed with
 * SIGKILL, or by the OOM killer, before they could remove their own), once per spill folder
 * and process, once nothing in them has changed for STALE_AFTER_MS. Folders of other machines, of
 * live processes and of unknown owners are kept.
 */
async function sweepDeadRunDirs(spillDir: string): Promise<void> {
  if (swept.has(spillDir)) return;
  swept.add(spillDir);
  const names = await readdir(spillDir).catch(() => [] as string[]);
  for (const name of names) {
    const m = RUN_DIR.exec(name);
    if (!m || !ownerGone(m[1]!, Number(m[2])) || !(await untouchedFor(join(spillDir, name), STALE_AFTER_MS))) continue;
    await rm(join(spillDir, name), { recursive: true, force: true }).catch(() => {});
  }
}

/** Make a unique run folder under `spillDir` (default os.tmpdir()). */
export async function createRunDir(spillDir: string = tmpdir()): Promise<RunDir> {
  let path: string;
  try {
    path = await mkdtemp(join(spillDir, `sluice-run-${OWNER}-`));
  } catch (err) {
    throw badSpillDir(spillDir, err);
  }
  const dir = new Dir(path);
  await sweepDeadRunDirs(spillDir);
  return dir;
}

