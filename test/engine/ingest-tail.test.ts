/**
 * An exchange that spilled while its input came in writes the rows it still kept too before its
 * stage's kernels run, when the stage fills another exchange next (spillTail): kept, they would
 * take the room the stage's routed outputs need, and the outputs would spill reply by reply in
 * tiny pieces (a 100M-row window at 64 MiB: 30 MiB kept in some runs, 4.2M output pieces
 * instead of 0.5M). One that did not spill keeps everything.
 */
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/index.js';
import { ingest } from '../../src/coordinator/ingest.js';

const MiB = 2 ** 20;

/** `batches` batches of `rows` rows: k int32 (hash key), v float64. */
async function* input(batches: number, rows: number): AsyncGenerator<A.RecordBatch> {
  for (let b = 0; b < batches; b++) {
    const k = Int32Array.from({ length: rows }, (_, i) => (i * 7919 + b) % 1000);
    const v = Float64Array.from({ length: rows }, (_, i) => b * rows + i);
    yield new A.RecordBatch({ k: A.makeData({ type: new A.Int32(), data: k }), v: A.makeData({ type: new A.Float64(), data: v }) });
  }
}

const schema = new A.Schema([new A.Field('k', new A.Int32(), false), new A.Field('v', new A.Float64(), false)]);

async function ingested(budget: string, batches: number): Promise<{ spilled: boolean; bytes: number; rows: number }> {
  const engine = new Engine({ threads: 2, memoryBudget: budget });
  const ctx = engine.runContext(undefined);
  try {
    const { exchange, store, rows } = await ingest(ctx, input(batches, 50_000), schema, { name: 't', routed: [0, 1], hashKeys: [0], partitions: 16, owned: true, retain: false, spillTail: true });
    const res = { spilled: exchange.spilled, bytes: exchange.bytes, rows };
    exchange.release();
    store?.release();
    return res;
  } finally {
    await ctx.close();
    await engine.close();
  }
}

describe('ingest', () => {
  it('an exchange that spilled keeps no rows in memory when its input ends', async () => {
    // 40 x 50K rows of 12 bytes (24 MB) through a 4 MiB budget.
    const r = await ingested('4MiB', 40);
    expect(r.rows).toBe(2_000_000);
    expect(r.spilled).toBe(true);
    expect(r.bytes).toBe(0);
  });

  it('one that never spilled keeps every row', async () => {
    const r = await ingested('256MiB', 4);
    expect(r.spilled).toBe(false);
    expect(r.bytes).toBeGreaterThan(2.4 * MiB * 0.9);
  });
});
