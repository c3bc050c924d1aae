/**
 * Where results go, through the built CLI: `-o -` and the formats on stdout, the IPC stream
 * vs file formats by extension, a round trip through pipes, write-through onto FIFOs, devices
 * and symlinks, `--format` without `-o` leaving the job's output file alone, a full disk
 * failing with exit 1 and no file, and `--stats json` alone on stderr.
 */
import { execFileSync, spawn } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, tradesJob, writeJob } from './helpers.js';
import { BUILT, errorLines, MAIN, sluice } from './spawn.js';

let dir: string;
let cleanup: () => Promise<void>;
let job: string;
let csvRef: string;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  job = await writeJob(dir, 'job.json', tradesJob);
});
afterAll(async () => cleanup());

const T0 = ['--threads', '0'];
const IPC_FILE_MAGIC = Buffer.from('ARROW1');
const IPC_STREAM_MARKER = Buffer.from([0xff, 0xff, 0xff, 0xff]);

describe.skipIf(!BUILT)('outputs', () => {
  it('-o - writes CSV by default, or --format; identical to the file outputs', async () => {
    const r = await sluice([...T0, 'run', job, '-o', '-']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    csvRef = r.stdout.toString();
    expect(csvRef.split('\n')[0]).toBe('sym,ts,price,qty,venue,ts_right,bid,ask,venue_right,qty_3,px_1m,n,notional');
    expect(csvRef.trimEnd().split('\n')).toHaveLength(401);
    const f = await sluice([...T0, '--quiet', 'run', job, '-o', join(dir, 'out.csv')]);
    expect(f.code).toBe(0);
    expect(await readFile(join(dir, 'out.csv'), 'utf8')).toBe(csvRef);
    const nd = await sluice([...T0, 'run', job, '-o', '-', '--format', 'ndjson']);
    const objects = nd.stdout.toString().trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(objects).toHaveLength(400);
    expect(Object.keys(objects[0])).toEqual(csvRef.split('\n')[0]!.split(','));
    const ndFile = join(dir, 'out.ndjson');
    expect((await sluice([...T0, '--quiet', 'run', job, '-o', ndFile])).code).toBe(0);
    expect(await readFile(ndFile, 'utf8')).toBe(nd.stdout.toString());
  });

  it('.arrows is the IPC stream format, .arrow/.feather/.ipc the file format, stdout a stream', async () => {
    for (const [name, magic] of [
      ['x.arrows', IPC_STREAM_MARKER],
      ['x.arrow', IPC_FILE_MAGIC],
      ['x.feather', IPC_FILE_MAGIC],
      ['x.ipc', IPC_FILE_MAGIC],
    ] as const) {
      const p = join(dir, name);
      const r = await sluice([...T0, '--quiet', 'run', job, '-o', p]);
      expect(r.code).toBe(0);
      const bytes = await readFile(p);
      expect(bytes.subarray(0, magic.length).equals(magic), name).toBe(true);
      expect(tableFromIPC(bytes).numRows).toBe(400);
    }
    const s = await sluice([...T0, 'run', job, '-o', '-', '--format', 'arrow']);
    expect(s.stdout.subarray(0, 4).equals(IPC_STREAM_MARKER)).toBe(true);
    expect(tableFromIPC(s.stdout).numRows).toBe(400);
  });

  it('round trip through pipes: sluice run -o - --format arrow | sluice head - | CSV', async () => {
    const arrows = await readFile(join(dir, 'x.arrows'));
    const r = await sluice([...T0, 'head', '-', '-n', '1000', '-o', '-'], { stdin: arrows });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toBe(csvRef);
  });

  it('-o onto a FIFO writes through (the FIFO stays a FIFO)', async () => {
    const fifo = join(dir, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    const reader = new Promise<string>((resolve, reject) => {
      const cat = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      cat.stdout.on('data', (d: Buffer) => (out += d.toString()));
      cat.on('error', reject);
      cat.on('close', () => resolve(out));
    });
    const r = await sluice([...T0, '--quiet', 'run', job, '-o', fifo], { timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(await reader).toBe(csvRef);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('-o onto a device node writes through (/dev/null stays a device; /dev/stdout is CSV)', async () => {
    const r = await sluice([...T0, 'run', job, '-o', '/dev/null']);
    expect(r.code).toBe(0);
    expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
    const s = await sluice([...T0, '--quiet', 'run', job, '-o', '/dev/stdout']);
    expect(s.code).toBe(0);
    expect(s.stdout.toString()).toBe(csvRef);
  });

  it('-o onto a symlink keeps the link and replaces its target atomically', async () => {
    await mkdir(join(dir, 'real'), { recursive: true });
    const target = join(dir, 'real', 'target.csv');
    await writeFile(target, 'old');
    const link = join(dir, 'link.csv');
    await symlink(target, link);
    const r = await sluice([...T0, '--quiet', 'run', job, '-o', link]);
    expect(r.code).toBe(0);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, 'utf8')).toBe(csvRef);
    expect((await readdir(join(dir, 'real'))).filter((f) => f.includes('sluice-tmp'))).toEqual([]);
  });

  it('--format without -o goes to stdout only: the job output file is not overwritten', async () => {
    const pq = join(dir, 'kept.parquet');
    const withOutput = await writeJob(dir, 'with-output.json', { ...tradesJob, output: { path: 'kept.parquet' } });
    expect((await sluice([...T0, '--quiet', 'run', withOutput])).code).toBe(0);
    const before = await readFile(pq);
    expect(before.subarray(0, 4).toString()).toBe('PAR1');
    const r = await sluice([...T0, 'run', withOutput, '--format', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toMatch(/400 rows \(20 shown\), 13 columns/);
    expect((await readFile(pq)).equals(before)).toBe(true);
  });

  it('--stats json: the JSON alone on stderr; --stats-file: into the file', async () => {
    const r = await sluice([...T0, '--stats', 'json', 'run', job, '-o', join(dir, 'stats-out.csv')]);
    expect(r.code).toBe(0);
    const stats = JSON.parse(r.stderr);
    expect(stats).toMatchObject({ rowsIn: 1200, rowsOut: 400, threads: 0 });
    const d = await sluice([...T0, '--stats', 'json', 'demo', '--rows', '2000']);
    expect(d.code).toBe(0);
    expect(Object.keys(JSON.parse(d.stderr))).toEqual(['window', 'asof', 'explode']);
    const file = join(dir, 'stats.json');
    const f = await sluice([...T0, '--stats-file', file, 'run', job, '-o', '-']);
    expect(f.code).toBe(0);
    expect(f.stderr).toBe('');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ rowsOut: 400 });
  });

  it('a full disk fails with exit 1, one error line, and no file left (tiny tmpfs)', async (ctx) => {
    const mnt = join(dir, 'tiny');
    await mkdir(mnt);
    // a private mount namespace: the tmpfs disappears with the process
    const probe = await new Promise<number | null>((resolve) => {
      const p = spawn('unshare', ['-m', 'sh', '-c', `mount -t tmpfs -o size=16k tmpfs "${mnt}"`], { stdio: 'ignore' });
      p.on('error', () => resolve(-1));
      p.on('close', resolve);
    });
    if (probe !== 0) ctx.skip();
    for (const out of ['out.csv', 'out.arrow', 'out.parquet']) {
      const script = `mount -t tmpfs -o size=16k tmpfs "${mnt}" && echo previous > "${mnt}/keep.csv" && "${process.execPath}" "${MAIN}" --threads 0 run "${job}" -o "${mnt}/${out}"; echo "exit=$?"; ls -A "${mnt}"`;
      const r = await new Promise<{ out: string; err: string }>((resolve) => {
        const p = spawn('unshare', ['-m', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let o = '';
        let e = '';
        p.stdout.on('data', (x: Buffer) => (o += x.toString()));
        p.stderr.on('data', (x: Buffer) => (e += x.toString()));
        p.on('close', () => resolve({ out: o, err: e }));
      });
      expect(r.out, out).toMatch(/^exit=1\nkeep\.csv\n$/);
      expect(errorLines(r.err)).toHaveLength(1);
      expect(r.err).toMatch(/^sluice: error: InputError \[OUTPUT_UNWRITABLE\]: .*ENOSPC/);
    }
  });
});
