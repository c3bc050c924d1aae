import { afterEach, describe, expect, it } from 'vitest';
import * as A from 'apache-arrow';
import { schemaFromArrow } from '../../src/columns/arrow-types.js';
import { describeData, toSharedData } from '../../src/columns/shared.js';
import { MemoryBudget } from '../../src/memory/budget.js';
import { BufferPool } from '../../src/memory/buffer-pool.js';
import { MergeBuffer } from '../../src/memory/merge-buffer.js';
import { createRunDir, type RunDir } from '../../src/memory/temp-dir.js';
import { Exchange, type ExchangeEnv } from '../../src/shuffle/exchange.js';
import { loadPartition } from '../../src/worker/partition-input.js';
import type { RoutedChunks } from '../../src/types/tasks.js';

let dir: RunDir | null = null;
afterEach(async () => {
  await dir?.remove();
  dir = null;
});

/** An exchange environment over a budget of `limit` bytes (1: nothing can be kept, every reply spills). */
function testEnv(limit: number, spilled: (bytes: number) => void = () => {}): ExchangeEnv {
  const budget = new MemoryBudget(limit);
  return {
    budget,
    pool: new BufferPool(budget),
    leave: () => 0,
    pieceBytes: 1 << 20,
    runDir: async () => (dir ??= await createRunDir()),
    track: () => {},
    untrack: () => {},
    spilled,
    merge: new MergeBuffer(budget),
  };
}

/** One routing reply: rows [first, first + n) with value = row id, destinations taking equal blocks in turn. */
function reply(first: number, n: number, partitions: number): RoutedChunks {
  const ids = Uint32Array.from({ length: n }, (_, i) => first + i);
  const per = Math.ceil(n / partitions);
  const bounds = Uint32Array.from({ length: partitions + 1 }, (_, d) => Math.min(n, d * per));
  const rowIds = describeData(toSharedData(A.makeData({ type: new A.Uint32(), length: n, data: ids })));
  const v = describeData(toSharedData(A.makeData({ type: new A.Float64(), length: n, data: Float64Array.from(ids) })));
  return { extraBytes: n * 12, bufferBytes: 0, buffer: null, rowIds, columns: [v], bounds };
}

describe('Exchange.piecesOf', () => {
  it("groups a destination's many small spilled batches into inputs of about maxBytes, rows in order and each once", async () => {
    let spilledBytes = 0;
    // nothing can be kept: every reply spills
    const env = testEnv(1, (bytes) => {
      spilledBytes += bytes;
    });
    const schema = schemaFromArrow(new A.Schema([new A.Field('v', new A.Float64(), false)]));
    const ex = new Exchange(env, 'test', schema, 4);
    // 60 replies of 400 rows: each spill writes a 100-row batch per destination, and a
    // destination's batches are never adjacent in the file.
    for (let r = 0; r < 60; r++) await ex.add(reply(r * 400, 400, 4), null);
    await ex.seal();
    expect(spilledBytes).toBeGreaterThan(0);
    const maxBytes = 20_000; // about 12 spilled batches of 100 rows (12 bytes a row + framing)
    const fits = (bytes: number) => bytes <= maxBytes;
    const inputs = ex.piecesOf(1, fits);
    const total = inputs.reduce((t, x) => t + x.bytes, 0);
    expect(inputs.length).toBeLessThanOrEqual(Math.ceil(total / maxBytes) + 1);
    expect(inputs.length).toBeGreaterThan(1);
    for (const x of inputs) expect(x.bytes).toBeLessThanOrEqual(maxBytes);
    const seen: number[] = [];
    for (const x of inputs) {
      const loaded = await loadPartition(x.input);
      expect(loaded.rowIds.length).toBe(x.rows);
      seen.push(...loaded.rowIds.subarray(0, x.rows));
    }
    const expected = Array.from({ length: 60 }, (_, r) => Array.from({ length: 100 }, (_, i) => r * 400 + 100 + i)).flat();
    expect(seen).toEqual(expected);
    ex.release();
  });
});

/** Rows [first, first + n) routed to destination id % 4, with a string of id % 13 bytes each. */
function stringReply(first: number, n: number): RoutedChunks {
  const order = Array.from({ length: n }, (_, i) => first + i).sort((a, b) => (a % 4) - (b % 4) || a - b);
  const bounds = Uint32Array.from({ length: 5 }, (_, d) => order.filter((id) => id % 4 < d).length);
  const rowIds = describeData(toSharedData(A.makeData({ type: new A.Uint32(), length: n, data: Uint32Array.from(order) })));
  const s = describeData(toSharedData(A.vectorFromArray(order.map((id) => 'x'.repeat(id % 13)), new A.Utf8()).data[0]!));
  const v = describeData(toSharedData(A.makeData({ type: new A.Int64(), length: n, data: BigInt64Array.from(order, BigInt) })));
  return { extraBytes: n * 40, bufferBytes: 0, buffer: null, rowIds, columns: [v, s], bounds };
}

describe('Exchange.contentBytesOf', () => {
  it('is the same whether the rows were kept or spilled and however they were cut into replies', async () => {
    const schema = schemaFromArrow(new A.Schema([new A.Field('v', new A.Int64(), false), new A.Field('s', new A.Utf8(), true)]));
    const make = (limit: number): Exchange => new Exchange(testEnv(limit), 'content', schema, 4);
    const kept = make(1 << 30);
    for (let r = 0; r < 30; r++) await kept.add(stringReply(r * 400, 400), null);
    const spilled = make(1); // nothing can be kept: every reply spills
    for (let r = 0; r < 12; r++) await spilled.add(stringReply(r * 1000, 1000), null);
    await kept.seal();
    await spilled.seal();
    for (let d = 0; d < 4; d++) {
      expect(spilled.rowsOf(d)).toBe(kept.rowsOf(d));
      expect(spilled.spilledDataBytesOf(d)).toBeGreaterThan(0);
      expect(spilled.contentBytesOf(d)).toBe(kept.contentBytesOf(d));
    }
    // the chunks' and spilled batches' own bytes differ (their framing and padding)
    expect([0, 1, 2, 3].some((d) => spilled.spilledDataBytesOf(d) !== kept.memoryBytesOf(d))).toBe(true);
    kept.release();
    spilled.release();
  });
});
