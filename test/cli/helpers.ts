/** Test helpers for the CLI: run `runCli` in-process with captured stdout/stderr. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

export class Capture extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    cb();
  }
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  get text(): string {
    return this.bytes.toString('utf8');
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export async function cli(argv: string[], opts: { tty?: boolean; signal?: AbortSignal } = {}): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(argv, {
    stdout,
    stderr,
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: false,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text, stdoutBytes: stdout.bytes };
}

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(os.tmpdir(), 'sluice-cli-test-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeJob(dir: string, name: string, job: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof job === 'string' ? job : JSON.stringify(job, null, 2));
  return path;
}

/** A small job exercising explode, window and asof on demo data (window + asof on trades). */
export const tradesJob = {
  sources: {
    trades: { type: 'demo', dataset: 'trades', rows: 400, seed: 7 },
    quotes: { type: 'demo', dataset: 'quotes', rows: 800, seed: 8 },
  },
  steps: [
    { op: 'asofJoin', right: 'quotes', on: 'ts', by: 'sym', direction: 'nearest', tolerance: '30s', condition: 'venue = venue_right' },
    {
      op: 'window',
      partitionBy: 'sym',
      orderBy: 'ts',
      columns: {
        qty_3: { fn: 'sum', column: 'qty', rows: [2, 0] },
        px_1m: { fn: 'avg', column: 'price', range: ['1m', 0] },
        n: { fn: 'count', range: ['unbounded', 0] },
      },
    },
    { op: 'withColumns', columns: { notional: 'price * qty' } },
  ],
};

export const ordersJob = {
  sources: { orders: { type: 'demo', dataset: 'orders', rows: 300, seed: 5 } },
  steps: [
    { op: 'explode', columns: ['items', 'quantities'], outputColumn: ['item', 'quantity'], ordinality: 'pos' },
    { op: 'window', partitionBy: 'item', orderBy: 'id', columns: { q_run: { fn: 'sum', column: 'quantity', rows: ['unbounded', 0] } } },
  ],
};
