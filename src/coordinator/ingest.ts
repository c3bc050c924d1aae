/**
 * The partition phase of a blocking operator: reads its input stream, keeps the batches for
 * the output phase when the operator replays its input (BatchStore), and routes the columns
 * the operator needs through partition tasks into an Exchange.
 *
 * Slabs: consecutive rows (big batches are cut) of about `slabRows` rows, fewer when the
 * budget is small, copied once into a pooled shared buffer. Each partition task holds three
 * loans (that input copy, the output buffer the exchange may keep, its scratch), so the memory
 * of the phase is bounded by the tasks in flight: one per thread, plus the slab being filled.
 */
import type * as A from 'apache-arrow';
import PQueue from 'p-queue';
import { SharedArena } from '../columns/arena.js';
import { schemaFromArrow } from '../columns/arrow-types.js';
import { batchCopyBytes, describeBatch, selectColumns } from '../columns/shared.js';
import { Exchange } from '../shuffle/exchange.js';
import { routedTotal } from '../shuffle/routed-parts.js';
import type { BatchDesc, SchemaDesc } from '../types/column.js';
import type { PartialAggregate, RoutedChunks, SortRangeRouting } from '../types/tasks.js';
import { BatchStore } from './batch-store.js';
import { LOAN_SLACK, type Loan, type RunContext } from './run-context.js';

export interface IngestSpec {
  name: string;
  /** Input column indices routed to the partitions, in this order. */
  routed: number[];
  /** Positions within `routed` of the hash keys (empty: one partition). */
  hashKeys: number[];
  partitions: number;
  /** Batches are Sluice's own (counted, spillable), not the caller's. */
  owned: boolean;
  /** Keep the input batches for the output phase. */
  retain: boolean;
  /** The input's batches again, for the output phase, instead of keeping them (see BatchStore). */
  reread?: (() => AsyncIterable<A.RecordBatch>) | null;
  /** Sees each input batch's routed columns with its first row id (e.g. to sample sort keys). */
  onBatch?: (routed: A.RecordBatch, rowBase: number) => void;
  /**
   * The stage next fills another exchange (its outputs routed by row id, or a second input
   * side): an exchange that spilled then writes the rows it still keeps before sealing (see
   * the end of ingest). A stage that streams its kernels' results leaves it false.
   */
  spillTail?: boolean;
  /**
   * What the exchange leaves free for loans when less than the run's headroom will do (a sort
   * whose ranges are planned: its tasks' loans are known); see RunContext.exchangeEnv.
   */
  headroom?: number;
  /** Route by key ranges (a sort whose splitters are known) instead of hashing `hashKeys`. */
  ranges?: SortRangeRouting;
  /** The rows' hashes go along as a last uint32 column of the exchange (HashRouting.carry). */
  carryHash?: boolean;
  /**
   * A group-by's partial pass: each slab is aggregated and its groups are routed (the
   * exchange holds `schema`, hashed on `hashKeys` of it) instead of its rows.
   */
  partial?: PartialIngest;
}

export interface PartialIngest {
  aggregate: PartialAggregate;
  /** The partial outputs' columns (what the exchange holds). */
  schema: SchemaDesc;
  /** Hash key positions among the partial outputs. */
  hashKeys: number[];
  /** Bytes per row the aggregation needs in scratch beyond the slab's copy, and fixed bytes (its hash table). */
  scratchPerRow: number;
  scratchFixed: number;
  /** Bytes per row the partial outputs may take beyond the routed input's. */
  widenPerRow: number;
}

export interface Ingested {
  store: BatchStore | null;
  exchange: Exchange;
  rows: number;
  /** The exchange holds a partial pass's groups (spec.partial, kept after its probe), not rows. */
  partial: boolean;
}

/** The carried hashes' column (IngestSpec.carryHash), last in the exchange. */
const HASH_FIELD: SchemaDesc[number] = { name: '__hash', type: { kind: 'int', bits: 32, signed: false }, nullable: false };

/**
 * A group-by's partial pass is kept when grouping the first slab shrinks it at least this many
 * times. Grouping pays when keys repeat (10M rows, 1k keys, 2 threads: 0.23 s against 0.42 s
 * routing every row); with 100k keys a slab's hash table no longer fits the caches and
 * grouping costs more than the routing it saves (0.95 s against 0.52 s), while each hash
 * partition holds few enough keys to group fast. DuckDB and Polars adapt their partial
 * aggregates the same way. Results never depend on it (the merge is exact).
 */
const PARTIAL_MIN_REDUCTION = 10;

/**
 * Bytes per routed row a partition task holds in its loans (input copy, output, scratch); a
 * partial pass also groups the slab in scratch (its output loan, mostly unused when groups are
 * few, is compacted by the exchange and not counted here).
 */
const TASK_BYTES_PER_ROW = (rowBytes: number, partial?: PartialIngest): number => 3 * rowBytes + 32 + (partial ? rowBytes + partial.scratchPerRow : 0);

/**
 * Rows per slab: as many as config.slabRows, as few as the budget allows: the tasks in flight
 * and the slab being made ready hold loans at once, so each gets its share of that many
 * (an eighth of the budget at most, so the exchanges keep their rows instead of spilling).
 */
export function slabRowsFor(ctx: RunContext, rowBytes: number, partial?: PartialIngest): number {
  // The loans in flight also count while an exchange decides whether it may keep its rows (it
  // keeps them while half the budget stays free): together they stay within an eighth of it.
  const share = Math.min(ctx.limits.taskBytes * ctx.concurrency, ctx.budget.limit / 8) / (ctx.concurrency + 1);
  const fit = Math.floor((share - 3 * LOAN_SLACK) / TASK_BYTES_PER_ROW(rowBytes, partial));
  return Math.max(1, Math.min(ctx.config.slabRows, fit));
}

export async function ingest(ctx: RunContext, input: AsyncIterable<A.RecordBatch>, inputSchema: A.Schema, spec: IngestSpec): Promise<Ingested> {
  const store = spec.retain ? new BatchStore(ctx, spec.name, spec.owned, spec.reread ?? null) : null;
  const ordered = spec.routed.map((i) => schemaFromArrow(inputSchema)[i]!);
  // A partial pass is probed on the first slab (see PARTIAL_MIN_REDUCTION): until then both
  // exchanges exist (empty ones hold nothing), and the one not taken is released.
  let partial = spec.partial ?? null;
  let probing = partial !== null;
  const withHash = (schema: SchemaDesc): SchemaDesc => (spec.carryHash ? [...schema, HASH_FIELD] : schema);
  const rowExchange = new Exchange(ctx.exchangeEnv(spec.headroom), spec.name, withHash(ordered), spec.partitions);
  const groupExchange = partial ? new Exchange(ctx.exchangeEnv(), spec.name, withHash(partial.schema), spec.partitions) : null;
  let exchange = rowExchange;
  const queue = new PQueue({ concurrency: ctx.concurrency });
  let failure: { err: unknown } | null = null;
  let slab: A.RecordBatch[] = [];
  let slabRows = 0;
  let slabBase = 0;
  // Slabs are handed to the exchange in input order (a slab waits for the one before it), so
  // each destination's chunks come in ascending row ids and its reader need not sort them.
  let previousAdd: Promise<void> = Promise.resolve();
  let rows = 0;
  let slabTarget = 0;
  let slabRowBytes = 0;

  const route = async (described: BatchDesc[], rowBase: number, withPartial: boolean, out: Loan, scratch: Loan): Promise<RoutedChunks> => {
    const done = await ctx.task({
      kind: 'partition',
      batches: described,
      routing:
        !withPartial && spec.ranges
          ? spec.ranges
          : { kind: 'hash', keyColumns: withPartial ? partial!.hashKeys : spec.hashKeys, partitions: spec.partitions, seed: ctx.config.seed, level: 0, carry: spec.carryHash ?? false },
      ...(withPartial ? { partial: partial!.aggregate } : {}),
      rowBase,
      outputBuffer: out.buffer,
      scratch: scratch.buffer,
    });
    ctx.stats.overflowBytes += done.scratch.overflow;
    return done.value;
  };

  const flush = async (): Promise<void> => {
    if (slabRows === 0) return;
    const batches = slab;
    const rowBase = slabBase;
    const n = slabRows;
    slab = [];
    slabBase += slabRows;
    slabRows = 0;
    const inBytes = batches.reduce((s, b) => s + batchCopyBytes(b), 0) + 64 * spec.routed.length * batches.length + LOAN_SLACK;
    // The routed copy of the rows (never more than their input copy) and their 32-bit row ids:
    // the exchange keeps this buffer whole, so extra room would be held until the kernel runs.
    const outBytes = inBytes + (4 + (spec.carryHash ? 4 : 0) + (partial?.widenPerRow ?? 0)) * n + LOAN_SLACK;
    // Range routing also makes each sort key comparable (up to 16 bytes a row per key); the
    // grouping by destination takes two words per destination whatever the rows.
    const rangeBytes = spec.ranges ? 16 * spec.ranges.keys.length * n : 0;
    const destinationBytes = 8 * (spec.partitions + 1);
    const scratchBytes = (batches.length > 1 ? inBytes : 0) + (24 + (partial ? inBytes / n + partial.scratchPerRow : 0)) * n + rangeBytes + destinationBytes + (partial?.scratchFixed ?? 0) + LOAN_SLACK;
    await ctx.clock.during('partition', queue.onSizeLessThan(1));
    if (failure) return;
    const [inLoan, outLoan, scratchLoan] = await ctx.clock.during('partition', ctx.loans(`${spec.name}.slab`, [inBytes, outBytes, scratchBytes], [1]));
    // The slab's columns go to the worker in the pooled input loan; it writes the partitioned
    // rows into the output loan, which the exchange keeps or gives back after spilling.
    const arena = new SharedArena(1 << 16, inLoan!.buffer, false);
    const described = batches.map((b) => describeBatch(b, arena.alloc));
    const probe = probing;
    probing = false;
    const withPartial = partial !== null;
    const before = previousAdd;
    let added!: () => void;
    previousAdd = new Promise<void>((resolve) => (added = resolve));
    const job = async (): Promise<void> => {
      try {
        // A job queued behind a failure only gives its loans back.
        if (failure) return;
        let routed = await route(described, rowBase, withPartial, outLoan!, scratchLoan!);
        if (probe) {
          // The first slab's reduction decides the partial pass for the rest.
          const groups = routedTotal(routed);
          if (groups * PARTIAL_MIN_REDUCTION <= n) {
            exchange = groupExchange!;
            rowExchange.release();
          } else {
            partial = null;
            slabTarget = slabRowsFor(ctx, slabRowBytes); // the next slabs sized for routing rows
            groupExchange!.release();
            routed = await route(described, rowBase, false, outLoan!, scratchLoan!);
          }
        }
        inLoan!.release();
        scratchLoan!.release();
        await before;
        await exchange.add(routed, outLoan!);
        ctx.progress.add('partition', n);
        // A partial pass computes over the slab's rows here: the kernel bar counts input rows,
        // not the fewer partial groups the final tasks see (they count nothing).
        if (exchange === groupExchange) ctx.progress.add('kernel', n);
      } finally {
        added();
        inLoan!.release();
        scratchLoan!.release();
        outLoan!.release();
      }
    };
    // The probe runs while the other slabs wait (they depend on its decision).
    if (probe) return ctx.clock.during('partition', job());
    void queue.add(job).catch((err: unknown) => {
      failure ??= { err };
    });
  };

  const it = input[Symbol.asyncIterator]();
  ctx.progress.start('partition');
  // A slab that cannot be lent while nothing else is out makes the exchange spill what it keeps.
  const unrelieve = ctx.relief(() => exchange.spillKept());
  try {
    for (;;) {
      if (failure) break;
      const r = await it.next();
      if (r.done) break;
      const batch = r.value;
      ctx.checkAbort();
      rows += batch.numRows;
      if (store) await store.push(batch);
      if (batch.numRows === 0) continue;
      // Big batches are cut so every slab (one partition task) holds about slabTarget rows.
      const routed = selectColumns(batch, spec.routed);
      spec.onBatch?.(routed, rows - batch.numRows);
      if (slabTarget === 0) {
        slabRowBytes = Math.max(1, batchCopyBytes(routed) / routed.numRows);
        slabTarget = slabRowsFor(ctx, slabRowBytes, partial ?? undefined);
      }
      for (let start = 0; start < routed.numRows; ) {
        const take = Math.min(routed.numRows - start, slabTarget - slabRows);
        slab.push(start === 0 && take === routed.numRows ? routed : routed.slice(start, start + take));
        slabRows += take;
        start += take;
        if (slabRows >= slabTarget) await flush();
      }
    }
    if (!failure) await flush();
    await ctx.clock.during('partition', queue.onIdle());
    unrelieve();
    if (failure) throw (failure as { err: unknown }).err;
    await store?.seal();
    // No slab at all (an empty input): the rows' exchange, empty, is the one kept.
    if (exchange !== groupExchange) groupExchange?.release();
    // An exchange that spilled would keep its last rows in memory until their tasks run, taking
    // the room the next exchange needs: a window's routed outputs then spilled reply by reply,
    // in tiny pieces (100M rows at 64 MiB: 30 MiB kept in some runs, 4.2M output pieces instead
    // of 0.5M, 101-129 s against 77-96). Written with the rest, they leave that room.
    if (spec.spillTail && exchange.spilled) await ctx.clock.during('spill', exchange.spillKept());
    await exchange.seal();
  } catch (err) {
    unrelieve();
    failure ??= { err };
    // Never queue.clear(): a dropped job would keep its loans. Queued jobs see the failure.
    await queue.onIdle();
    await it.return?.(undefined);
    store?.release();
    rowExchange.release();
    groupExchange?.release();
    throw err;
  }
  return { store, exchange, rows, partial: exchange === groupExchange };
}
