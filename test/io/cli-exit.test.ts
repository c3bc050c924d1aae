/**
 * No input or output failure leaves the CLI hanging (issue 7 item 9): the built CLI runs jobs
 * over broken, unreadable and mismatched inputs, and onto unwritable outputs, with 0 and 2
 * threads, each under a timeout; every one must exit by itself with a non-zero code and an
 * error line (`sluice: …`) on stderr. The job that used to hang (a Polars-written Parquet file with
 * Utf8View strings, written back to Parquet) must now succeed and exit 0.
 */
import * as A from 'apache-arrow';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pl from 'nodejs-polars';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeIpcAtomic } from '../../src/io/ipc.js';
import { tempDir } from '../cli/helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const LIMIT_MS = 30_000;

function run(args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, LIMIT_MS);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, timedOut });
    });
  });
}

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const t = A.tableFromArrays({ id: Int32Array.from({ length: 2000 }, (_, i) => i), s: Array.from({ length: 2000 }, (_, i) => `s${i % 9}`) });
  writeFileSync(join(dir, 'good.arrow'), A.tableToIPC(t, 'file'));
  await writeIpcAtomic(join(dir, 'sluice.arrow'), t.schema, t.batches); // with its leading schema message
  const bad = readFileSync(join(dir, 'sluice.arrow'));
  bad.fill(0, bad.length - 60, bad.length - 10); // the footer
  writeFileSync(join(dir, 'bad-footer.arrow'), bad);
  writeFileSync(join(dir, 'truncated.parquet'), readFileSync(join(dir, 'good.arrow')).subarray(0, 100));
  writeFileSync(join(dir, 'ragged.csv'), 'a,b\n1,2\n3\n');
  pl.DataFrame({ id: [1, 2, 3], s: ['x', null, 'a string longer than twelve'] }).writeParquet(join(dir, 'polars.parquet'));
  mkdirSync(join(dir, 'parts'));
  writeFileSync(join(dir, 'parts', 'a.arrow'), A.tableToIPC(t, 'file'));
  writeFileSync(join(dir, 'parts', 'b.arrow'), A.tableToIPC(A.tableFromArrays({ id: Float64Array.from([1]), s: ['x'] }), 'file'));
  writeFileSync(join(dir, 'a-file'), 'x');
});
afterAll(async () => cleanup());

function job(name: string, source: Record<string, unknown>, output: string): string {
  const p = join(dir, `${name}.json`);
  writeFileSync(p, JSON.stringify({ sources: { main: source }, steps: [{ op: 'filter', where: 'id >= 0' }], output: { path: output } }));
  return p;
}

const failing: Array<[string, Record<string, unknown>, string]> = [
  ['corrupt IPC footer', { type: 'ipc', path: 'bad-footer.arrow' }, 'out1.parquet'],
  ['truncated Parquet', { type: 'parquet', path: 'truncated.parquet' }, 'out2.arrow'],
  ['ragged CSV', { type: 'csv', path: 'ragged.csv' }, 'out3.parquet'],
  ['missing input', { type: 'parquet', path: 'nope.parquet' }, 'out4.csv'],
  ['dataset with mismatched files', { type: 'ipc', path: 'parts/*.arrow' }, 'out5.parquet'],
  ['Parquet input, output under a file', { type: 'parquet', path: 'polars.parquet' }, 'a-file/out.parquet'],
  ['IPC input, output in a missing folder', { type: 'ipc', path: 'good.arrow' }, 'missing/dir/out.csv'],
];

describe.skipIf(!existsSync(MAIN))('CLI failures exit by themselves', () => {
  for (const threads of ['0', '2']) {
    for (const [name, source, output] of failing) {
      it(`${name} (threads ${threads})`, async () => {
        const r = await run(['run', job(name.replaceAll(' ', '-'), source, output), '--threads', threads, '--quiet']);
        expect(r.timedOut, `${name}: still running after ${LIMIT_MS} ms`).toBe(false);
        expect(r.code, r.stderr).not.toBe(0);
        expect(r.code).not.toBeNull();
        expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('sluice:')).length, r.stderr).toBeGreaterThanOrEqual(1);
      }, LIMIT_MS + 10_000);
    }
    it(`the job that used to hang: Polars Parquet (Utf8View) to Parquet (threads ${threads})`, async () => {
      const r = await run(['run', job('polars-roundtrip', { type: 'parquet', path: 'polars.parquet' }, `roundtrip-${threads}.parquet`), '--threads', threads, '--quiet']);
      expect(r.timedOut).toBe(false);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(dir, `roundtrip-${threads}.parquet`))).toBe(true);
    }, LIMIT_MS + 10_000);
  }
});
