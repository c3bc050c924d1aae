/**
 * The built CLI as a child process (`npm test` builds first): the script entry, exit codes
 * through the process, SIGINT → 130 and SIGTERM → 143.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, tradesJob, writeJob } from './helpers.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function run(args: string[], opts: { interruptOn?: RegExp; signal?: NodeJS.Signals } = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // interrupt once the run is under way (the SIGINT handler is installed by then)
      if (opts.interruptOn && !interrupted && opts.interruptOn.test(stdout)) {
        interrupted = true;
        setTimeout(() => child.kill(opts.signal ?? 'SIGINT'), 300);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir()));
afterAll(async () => cleanup());

describe.skipIf(!existsSync(MAIN))('node dist/cli/main.js', () => {
  it('runs a job to stdout as CSV (not a TTY) with exit code 0', async () => {
    const job = await writeJob(dir, 'job.json', tradesJob);
    const r = await run(['--threads', '2', 'run', job]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('sym,ts,price,qty,venue,ts_right,bid,ask,venue_right,qty_3,px_1m,n,notional');
    expect(lines).toHaveLength(401);
  });

  it('exits 2 on a usage error', async () => {
    const r = await run(['run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required argument/);
  });

  it('exits 130 after SIGINT and leaves no spill folder', async () => {
    const spill = `${dir}/spill`;
    await mkdir(spill);
    const r = await run(['--threads', '2', '--temp-dir', spill, 'demo', '--rows', '1000000'], { interruptOn: /\[1\/3\]/ });
    // Once seen ended by a signal (code null) in a full run: say which, and what it printed.
    expect(r.code, `ended by ${r.signal ?? 'exit'}; stderr: ${r.stderr.slice(-2000)}`).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    expect(await readdir(spill)).toEqual([]);
  });

  it('exits 143 after SIGTERM (kill, timeout) and leaves no spill folder', async () => {
    const spill = `${dir}/spill-term`;
    await mkdir(spill);
    const r = await run(['--threads', '2', '--temp-dir', spill, 'demo', '--rows', '1000000'], { interruptOn: /\[1\/3\]/, signal: 'SIGTERM' });
    expect(r.code, `ended by ${r.signal ?? 'exit'}; stderr: ${r.stderr.slice(-2000)}`).toBe(143);
    expect(r.stderr).toMatch(/interrupted/);
    expect(await readdir(spill)).toEqual([]);
  });
});
