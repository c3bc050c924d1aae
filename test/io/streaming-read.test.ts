/**
 * Readers stream (issue 7 item 13): a multi-batch IPC file/stream, a multi-row-group Parquet
 * file and a multi-piece CSV file come back as several batches in order, and each observably
 * holds its input open only while it is read: breaking out early closes the file handle (IPC,
 * CSV: no descriptor of /proc/self/fd points at the file any more, while one did during the
 * read) or ends the decoder session (Parquet); aborting is an AbortError. Inputs arriving
 * through a FIFO yield their first batch before the writer has finished, so the readers do
 * not wait for the whole input.
 */
import * as arrow from 'apache-arrow';
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError } from '../../src/errors.js';
import { readCsvBatches } from '../../src/io/csv.js';
import { readIpcBatches, writeIpcAtomic } from '../../src/io/ipc.js';
import { readParquetBatches, writeParquetAtomic } from '../../src/io/parquet.js';
import { activeParquetReads } from '../../src/io/parquet-read-worker.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-io-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const batch = (k: number, n = 1000): arrow.RecordBatch =>
  new arrow.Table({ id: arrow.makeVector(Int32Array.from({ length: n }, (_, i) => k * n + i)) }).batches[0]!;
const input = Array.from({ length: 20 }, (_, k) => batch(k));

function ids(batches: arrow.RecordBatch[]): number[] {
  return batches.flatMap((b) => Array.from(b.getChild('id')!.toArray() as Int32Array));
}

/** File descriptors of this process open on `path`. */
function fdsOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // closed while listing
    }
  }
  return n;
}

describe('streaming reads', () => {
  for (const format of ['file', 'stream'] as const) {
    it(`IPC ${format}: one batch at a time, in order; an early break closes the file; abort`, async () => {
      const p = join(dir, `multi.${format}`);
      await writeIpcAtomic(p, input[0]!.schema, input, { format });
      const got: arrow.RecordBatch[] = [];
      for await (const b of readIpcBatches(p)) got.push(b);
      expect(got.length).toBe(20);
      expect(ids(got)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
      let seen = 0;
      let openDuring = 0;
      for await (const _ of readIpcBatches(p)) {
        openDuring = Math.max(openDuring, fdsOn(p));
        if (++seen === 3) break;
      }
      expect(openDuring).toBeGreaterThan(0);
      expect(fdsOn(p)).toBe(0);
      const ac = new AbortController();
      const err = await (async () => {
        for await (const _ of readIpcBatches(p, { signal: ac.signal })) ac.abort();
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AbortError);
      expect(fdsOn(p)).toBe(0);
    });
  }

  it('Parquet: several row groups and batches, in order; an early break ends the decoder session', async () => {
    const p = join(dir, 'multi.parquet');
    await writeParquetAtomic(p, input[0]!.schema, input, { rowGroupRows: 5000 });
    const got: arrow.RecordBatch[] = [];
    for await (const b of readParquetBatches(p, { batchRows: 3000 })) got.push(b);
    expect(got.length).toBeGreaterThan(4);
    expect(Math.max(...got.map((b) => b.numRows))).toBeLessThanOrEqual(3000);
    expect(ids(got)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(activeParquetReads()).toBe(0);
    let seen = 0;
    let during = 0;
    for await (const _ of readParquetBatches(p, { batchRows: 1000 })) {
      during = Math.max(during, activeParquetReads());
      if (++seen === 2) break;
    }
    expect(during).toBe(1);
    expect(activeParquetReads()).toBe(0);
  });

  it('CSV: batches of batchRows over several pieces; an early break closes the file', async () => {
    const p = join(dir, 'big.csv');
    const rows = 200_000; // about 2.5 MB: several 1 MiB pieces
    writeFileSync(p, `id,s\n${Array.from({ length: rows }, (_, i) => `${i},row-${i}`).join('\n')}\n`);
    let seen = 0;
    let openDuring = 0;
    for await (const b of readCsvBatches(p, { batchRows: 1000 })) {
      expect(b.numRows).toBe(1000);
      openDuring = Math.max(openDuring, fdsOn(p));
      if (++seen === 3) break;
    }
    expect(openDuring).toBeGreaterThan(0);
    expect(fdsOn(p)).toBe(0);
  });

  it('a FIFO: the first batch arrives before the writer has finished (IPC stream and CSV)', { timeout: 30_000 }, async () => {
    for (const kind of ['ipc', 'csv'] as const) {
      const fifo = join(dir, `pipe-${kind}`);
      execFileSync('mkfifo', [fifo]);
      const out = createWriteStream(fifo);
      const first = kind === 'ipc' ? arrow.tableToIPC(new arrow.Table([input[0]!, input[1]!]), 'stream') : Buffer.from(`id\n${Array.from({ length: 10 }, (_, i) => i).join('\n')}\n`);
      // the IPC stream's end marker and the CSV's last rows are written only after the first
      // batch came back (apache-arrow's stream reader looks one message ahead: two batches)
      out.write(kind === 'ipc' ? first.subarray(0, first.length - 8) : first);
      const it = (kind === 'ipc' ? readIpcBatches(fifo) : readCsvBatches(fifo, { batchRows: 10, inferRows: 10 }))[Symbol.asyncIterator]();
      const r = await it.next();
      expect(r.done).toBe(false);
      expect(r.value!.numRows).toBe(kind === 'ipc' ? 1000 : 10);
      out.end(kind === 'ipc' ? first.subarray(first.length - 8) : '10\n11\n');
      let rest = 0;
      for (let x = await it.next(); !x.done; x = await it.next()) rest += x.value.numRows;
      expect(rest).toBe(kind === 'ipc' ? 1000 : 2);
    }
  });
});
