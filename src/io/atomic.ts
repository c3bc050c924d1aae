/**
 * Atomic output files: the writers put their bytes into a temp file next to the target
 * (same directory, so the final rename stays on one file system), fsync it and rename it over
 * `path` at the end. On any failure or abort the temp file is removed and whatever was at
 * `path` before is left untouched. Temp names are `.<name>.<host>-<pid>-<random>.sluice-tmp`; one
 * still there when the process exits mid-write is removed then (./exit-cleanup), and one a killed
 * process left is removed by the next write to the same path on this machine (sweepDeadTemps).
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { removeAtExit } from './exit-cleanup.js';
import { OWNER, OWNER_PATTERN, ownerGone, STALE_AFTER_MS, untouchedFor } from './process-owner.js';
import { throwIfAborted, writeError, type FormatName } from './input-errors.js';

export interface AtomicTarget {
  /** the final path */
  path: string;
  /** the temp path the bytes go to */
  tempPath: string;
  /** open handle on the temp file */
  handle: FileHandle;
  /** bytes written through `write` so far */
  bytes: number;
  /** append bytes (plain or SharedArrayBuffer-backed views) or a UTF-8 string */
  write(chunks: Uint8Array | string | Uint8Array[]): Promise<void>;
}

export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${OWNER}-${randomBytes(6).toString('hex')}.sluice-tmp`);
}

/**
 * Removes the temps (files, or a dataset's folder) of writes to `path` by processes of this
 * machine that have ended without cleaning up (SIGKILL, the OOM killer) and that nothing has
 * touched for STALE_AFTER_MS. Never throws.
 */
export async function sweepDeadTemps(path: string): Promise<void> {
  const name = basename(path);
  const prefix = `.${name}.`;
  const entries = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!entry.startsWith(prefix) || !entry.endsWith(TEMP_SUFFIX)) continue;
    const m = TEMP_OWNER.exec(entry.slice(prefix.length, -TEMP_SUFFIX.length));
    const full = join(dirname(path), entry);
    if (m && ownerGone(m[1]!, Number(m[2])) && (await untouchedFor(full, STALE_AFTER_MS))) await rm(full, { recursive: true, force: true }).catch(() => {});
  }
}

const TEMP_SUFFIX = '.sluice-tmp';
/** `<host>-<pid>-<12 hex>` between the target's name and the suffix. */
const TEMP_OWNER = new RegExp(`^${OWNER_PATTERN}-[0-9a-f]{12}$`);

/**
 * Run `body` against a fresh temp file next to `path`, then rename it to `path`.
 * Errors from `body` propagate (fs errors become InputError OUTPUT_UNWRITABLE); the temp file
 * never survives a failure.
 */
export async function writeAtomic<T>(
  path: string,
  format: FormatName,
  body: (target: AtomicTarget) => Promise<T>,
  opts: { signal?: AbortSignal } = {},
): Promise<T> {
  throwIfAborted(opts.signal, path);
  await sweepDeadTemps(path);
  const tempPath = tempNameFor(path);
  const atExit = removeAtExit(tempPath);
  let handle: FileHandle | undefined;
  let created = false;
  try {
    handle = await open(tempPath, 'wx');
    created = true;
    const h = handle;
    const target: AtomicTarget = {
      path,
      tempPath,
      handle: h,
      bytes: 0,
      async write(chunks) {
        if (typeof chunks === 'string') {
          if (chunks.length === 0) return;
          const buf = Buffer.from(chunks, 'utf8');
          await writeFully(h, [buf]);
          target.bytes += buf.byteLength;
        } else {
          const list = Array.isArray(chunks) ? chunks : [chunks];
          const n = await writeFully(h, list);
          target.bytes += n;
        }
      },
    };
    const result = await body(target);
    throwIfAborted(opts.signal, path);
    await h.sync();
    await h.close();
    handle = undefined;
    throwIfAborted(opts.signal, path);
    await rename(tempPath, path);
    created = false;
    return result;
  } catch (err) {
    throw writeError(err, path, format);
  } finally {
    if (handle) await handle.close().catch(() => {});
    if (created) await unlink(tempPath).catch(() => {});
    atExit.forget();
  }
}

/** Where writeFully writes: a FileHandle, or any byte sink with the same writev (the CLI's stdout). */
export interface ChunkWriter {
  writev(buffers: Uint8Array[]): Promise<{ bytesWritten: number }>;
}

/** writev until every byte is written; returns the byte count. */
export async function writeFully(h: ChunkWriter, chunks: Uint8Array[]): Promise<number> {
  let total = 0;
  let list = chunks.filter((c) => c.byteLength > 0);
  for (const c of list) total += c.byteLength;
  let left = total;
  while (list.length > 0) {
    // writev takes at most IOV_MAX (1024) buffers per call
    const part = list.slice(0, 1024);
    const { bytesWritten } = await h.writev(part);
    left -= bytesWritten;
    // drop fully written buffers, keep the tail of a partly written one
    let skip = bytesWritten;
    let i = 0;
    while (i < list.length && skip >= list[i]!.byteLength) {
      skip -= list[i]!.byteLength;
      i++;
    }
    list = list.slice(i);
    if (skip > 0 && list.length > 0) list[0] = list[0]!.subarray(skip);
  }
  if (left !== 0) throw new Error(`short write: ${left} bytes left`);
  return total;
}
