/**
 * A full spill disk (issue 7 item 10): on a 64 KiB tmpfs (a private mount namespace made with
 * `unshare -m`; skipped where that is not allowed) a spilling window fails with
 * ExecutionError SPILL_FAILED naming ENOSPC, closes every spill handle (no descriptor under the
 * spill folder, which would keep the deleted file's blocks), leaves the folder empty with all
 * its space free again, and a second run on the same engine fails the same way rather than
 * finding the disk still full of the first run's deleted files.
 */
import * as A from 'apache-arrow';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lcg } from '../support/random.js';

const CHILD = fileURLToPath(new URL('../support/spill-full-disk-child.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sluice-full-disk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const n = 60_000;
const k = new Int32Array(n);
const t = new BigInt64Array(n);
const v = new Float64Array(n);
const next = lcg(3);
for (let i = 0; i < n; i++) {
  const s = next();
  k[i] = s % 97;
  t[i] = BigInt(s % 1_000_000);
  v[i] = (s % 1000) / 10;
}
const input = join(dir, 'input.arrow');
writeFileSync(input, A.tableToIPC(new A.Table({ k: A.makeVector(k), t: A.makeVector({ type: new A.TimestampMillisecond(), data: t }), v: A.makeVector(v) }), 'file'));

function sh(script: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn('unshare', ['-m', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (x: Buffer) => (out += x.toString()));
    p.stderr.on('data', (x: Buffer) => (err += x.toString()));
    p.on('error', () => resolve({ code: -1, out, err }));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

interface Run {
  error: { name: string; code: string; message: string } | null;
  fds: string[];
  left: string[];
  freeBefore: number;
  freeAfter: number;
}

describe.each([0, 2])('threads %i', (threads) => {
  it('a full spill disk fails twice the same way, with no handle left open and its space free again', async (ctx) => {
    const mnt = join(dir, `tiny-${threads}`);
    mkdirSync(mnt);
    const probe = await sh(`mount -t tmpfs -o size=64k tmpfs "${mnt}"`);
    if (probe.code !== 0) ctx.skip();
    const r = await sh(`mount -t tmpfs -o size=64k tmpfs "${mnt}" && exec "${process.execPath}" --import tsx "${CHILD}" "${mnt}" "${input}" ${threads}`);
    expect(r.code, r.err).toBe(0);
    const { runs, fdsAfterClose } = JSON.parse(r.out) as { runs: Run[]; fdsAfterClose: string[] };
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run.error).toMatchObject({ name: 'ExecutionError', code: 'SPILL_FAILED' });
      expect(run.error!.message).toMatch(/ENOSPC/);
      expect(run.fds).toEqual([]);
      expect(run.left).toEqual([]);
      expect(run.freeAfter).toBe(run.freeBefore);
    }
    expect(runs[1]!.freeBefore).toBe(runs[0]!.freeBefore);
    expect(fdsAfterClose).toEqual([]);
    // Node warns (DEP0137) when it has to close a FileHandle on garbage collection.
    expect(r.err).not.toMatch(/DEP0137|Closing file descriptor/);
  });
});
