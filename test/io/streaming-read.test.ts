/**
 * Readers stream: a multi-batch IPC file/stream and a multi-row-group Parquet file come back
 * as several batches in order; breaking out early and aborting both end the read cleanly.
 */
import * as arrow from 'apache-arrow';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError } from '../../src/errors.js';
import { readIpcBatches, writeIpcAtomic } from '../../src/io/ipc.js';
import { readParquetBatches, writeParquetAtomic } from '../../src/io/parquet.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-io-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const batch = (k: number, n = 1000): arrow.RecordBatch =>
  new arrow.Table({ id: arrow.makeVector(Int32Array.from({ length: n }, (_, i) => k * n + i)) }).batches[0]!;
const input = Array.from({ length: 20 }, (_, k) => batch(k));

function ids(batches: arrow.RecordBatch[]): number[] {
  return batches.flatMap((b) => Array.from(b.getChild('id')!.toArray() as Int32Array));
}

describe('streaming reads', () => {
  for (const format of ['file', 'stream'] as const) {
    it(`IPC ${format}: one batch at a time, in order; early exit and abort`, async () => {
      const p = join(dir, `multi.${format}`);
      await writeIpcAtomic(p, input[0]!.schema, input, { format });
      const got: arrow.RecordBatch[] = [];
      for await (const b of readIpcBatches(p)) got.push(b);
      expect(got.length).toBe(20);
      expect(ids(got)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
      let seen = 0;
      for await (const _ of readIpcBatches(p)) if (++seen === 3) break;
      expect(seen).toBe(3);
      const ac = new AbortController();
      const err = await (async () => {
        for await (const _ of readIpcBatches(p, { signal: ac.signal })) ac.abort();
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AbortError);
    });
  }

  it('Parquet: several row groups and batches, in order', async () => {
    const p = join(dir, 'multi.parquet');
    await writeParquetAtomic(p, input[0]!.schema, input, { rowGroupRows: 5000 });
    const got: arrow.RecordBatch[] = [];
    for await (const b of readParquetBatches(p, { batchRows: 3000 })) got.push(b);
    expect(got.length).toBeGreaterThan(4);
    expect(Math.max(...got.map((b) => b.numRows))).toBeLessThanOrEqual(3000);
    expect(ids(got)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    let seen = 0;
    for await (const _ of readParquetBatches(p, { batchRows: 1000 })) if (++seen === 2) break;
    expect(seen).toBe(2);
  });
});
