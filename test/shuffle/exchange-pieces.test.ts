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
    const budget = new MemoryBudget(1); // nothing can be kept: every reply spills
    let spilledBytes = 0;
    const env: ExchangeEnv = {
      budget,
      pool: new BufferPool(budget),
      leave: () => 0,
      pieceBytes: 1 << 20,
      runDir: async () => (dir ??= await createRunDir()),
      track: () => {},
      untrack: () => {},
      spilled: (bytes) => {
        spilledBytes += bytes;
      },
      merge: new MergeBuffer(budget),
    };
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
