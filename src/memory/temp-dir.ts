/**
 * Per-run temp folders for spill files.
 *
 * `createRunDir(spillDir)` makes a fresh `sluice-run-XXXXXX` folder (mkdtemp) under `spillDir`
 * (default os.tmpdir()); `file(prefix, ext)` hands out unique file paths inside it; `remove()`
 * deletes it recursively, is idempotent and never throws. Folders not removed yet are deleted
 * synchronously on process 'exit' (best effort: a SIGKILL leaves them behind).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlanError } from '../errors.js';

export interface RunDir {
  readonly path: string;
  /** A path for a new file in this folder: `<prefix>-<n><ext>`, unique within the run. */
  file(prefix: string, ext?: string): string;
  /** Delete the folder and everything in it; idempotent, never throws. */
  remove(): Promise<void>;
}

const live = new Set<string>();

function badSpillDir(spillDir: string, err: unknown): PlanError {
  return new PlanError(
    'BAD_SPILL_DIR',
    `Cannot create a run folder in spillDir ${spillDir}: ${err instanceof Error ? err.message : String(err)}`,
    { path: spillDir },
    { cause: err },
  );
}
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of live) {
      try {
        rmSync(p, { recursive: true, force: true });
      } catch {
        // best effort
      }
    }
    live.clear();
  });
}

class Dir implements RunDir {
  private seq = 0;
  private removed = false;
  constructor(readonly path: string) {}

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
      live.delete(this.path);
    } catch {
      // stays in `live`: the exit hook tries again
    }
  }
}

/** Make a unique run folder under `spillDir` (default os.tmpdir()). */
export async function createRunDir(spillDir: string = tmpdir()): Promise<RunDir> {
  installExitHook();
  let path: string;
  try {
    path = await mkdtemp(join(spillDir, 'sluice-run-'));
  } catch (err) {
    throw badSpillDir(spillDir, err);
  }
  live.add(path);
  return new Dir(path);
}

