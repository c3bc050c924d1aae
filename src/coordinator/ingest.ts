/**
 * The partition phase of a blocking operator: reads its input stream, keeps every batch for the
 * output phase (BatchStore), and routes the columns the operator needs — in slabs of
 * `slabRows` rows, copied once into shared memory — through partition tasks in the workers into
 * an Exchange. At most one partition task per thread is in flight.
 */
import type * as A from 'apache-arrow';
import PQueue from 'p-queue';
import { SharedArena } from '../columns/arena.js';
import { schemaFromArrow } from '../columns/arrow-types.js';
import { batchBytes, describeBatch, selectColumns } from '../columns/shared.js';
import { Exchange } from '../shuffle/exchange.js';
import type { PartitionResult, PartitionTask } from '../types/tasks.js';
import { BatchStore } from './batch-store.js';
import type { RunContext } from './run-context.js';

export interface IngestSpec {
  name: string;
  /** Input column indices routed to the partitions, in this order. */
  routed: number[];
  /** Positions within `routed` of the hash keys (empty: one partition). */
  hashKeys: number[];
  partitions: number;
  owned: boolean;
}

export interface Ingested {
  store: BatchStore;
  /** Replaced when the rows are partitioned again (range routing). */
  exchange: Exchange;
  rows: number;
}

export async function ingest(ctx: RunContext, input: AsyncIterable<A.RecordBatch>, inputSchema: A.Schema, spec: IngestSpec): Promise<Ingested> {
  const store = new BatchStore(ctx, spec.name, spec.owned);
  const ordered = spec.routed.map((i) => schemaFromArrow(inputSchema)[i]!);
  const exchange = new Exchange(ctx.exchangeEnv(), spec.name, ordered, spec.partitions);
  const queue = new PQueue({ concurrency: ctx.concurrency });
  let failure: unknown = null;
  let slab: A.RecordBatch[] = [];
  let slabRows = 0;
  let slabBase = 0;
  let slabsDone = 0;
  let slabsSent = 0;

  const flush = async (): Promise<void> => {
    if (slabRows === 0) return;
    const batches = slab;
    const rowBase = slabBase;
    slab = [];
    slabBase += slabRows;
    slabRows = 0;
    // The slab's columns go to the worker in a pooled shared buffer, and it writes the
    // partitioned rows into another one: both are reused by the next slabs and runs.
    const rows = batches.reduce((s, b) => s + b.numRows, 0);
    const inputBytes = batches.reduce((s, b) => s + batchBytes(b), 0) + 64 * spec.routed.length * batches.length;
    const inputBuffer = ctx.pool.take(inputBytes);
    const arena = new SharedArena(Math.max(1 << 16, Math.min(64 << 20, rows * 8 * spec.routed.length)), inputBuffer, false);
    const described = batches.map((b) => describeBatch(b, arena.alloc));
    const outputBuffer = ctx.pool.take(arena.allocated + rows * 4 + 64 * (spec.routed.length + 1) + 4096);
    const task: PartitionTask = {
      kind: 'partition',
      batches: described,
      outputBuffer,
      keyColumns: spec.hashKeys,
      partitions: spec.partitions,
      seed: ctx.config.seed,
      rowBase,
    };
    slabsSent++;
    await queue.onSizeLessThan(1);
    if (failure) return;
    void queue
      .add(async () => {
        const t0 = performance.now();
        const result = await ctx.run<PartitionResult>(task);
        ctx.pool.give([inputBuffer]);
        ctx.addPhase('partition', performance.now() - t0);
        await exchange.add(result, result.bytes, outputBuffer);
        ctx.progress('partition', ++slabsDone, slabsSent);
      })
      .catch((err: unknown) => {
        failure ??= err;
        queue.clear();
      });
  };

  try {
    for await (const batch of input) {
      if (failure) break;
      ctx.checkAbort();
      await store.push(batch);
      if (batch.numRows === 0) continue;
      // Big batches are cut so every slab (one partition task) holds about slabRows rows.
      const routed = selectColumns(batch, spec.routed);
      for (let start = 0; start < routed.numRows; ) {
        const take = Math.min(routed.numRows - start, ctx.config.slabRows - slabRows);
        slab.push(start === 0 && take === routed.numRows ? routed : routed.slice(start, start + take));
        slabRows += take;
        start += take;
        if (slabRows >= ctx.config.slabRows) await flush();
      }
    }
    if (!failure) await flush();
    await queue.onIdle();
    if (failure) throw failure;
    await store.seal();
    await exchange.seal();
  } catch (err) {
    queue.clear();
    await queue.onIdle();
    store.release();
    exchange.release();
    throw err;
  }
  return { store, exchange, rows: store.totalRows };
}
