/**
 * The shared path of blocking operators after ingest (window, asofJoin):
 *
 *   partitions ─► one kernel task each (loans sized from the partition and from what earlier
 *   tasks measured) ─► output rows with their row ids ─► output exchange by row-id range
 *   (kept or spilled under the budget) ─► per range, in order: an assemble task puts the rows
 *   in row-id order ─► the retained input is replayed range by range with its outputs attached.
 *
 * So results leave without being held: at any time the memory is the exchanges' share of the
 * budget, the loans of the tasks in flight and one assembled range per thread.
 */
import { emptyData } from '../io/arrow-input.js';
import * as A from 'apache-arrow';
import { sharedAlloc } from '../columns/arena.js';
import { typeToArrow } from '../columns/arrow-types.js';
import { bytesToBitmap, countSet } from '../columns/bits.js';
import { bufRefOf, dataBytes, rebuildData, descBytes } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { Exchange } from '../shuffle/exchange.js';
import { formatBytes, type Reservation } from '../memory/budget.js';
import type { FieldDesc } from '../types/column.js';
import type { TypedArray, TypedArrayConstructor } from '../types/keys.js';
import type { AsofTask, ChunkDesc, GroupByTask, JoinTask, KernelResult, OutputRouting, PartitionInput, WindowGroupByTask, WindowTask } from '../types/tasks.js';
import type { BatchStore } from './batch-store.js';
import { fixedWidth, outputRowBytes } from './column-widths.js';
import { budgetTooSmall, LOAN_SLACK, type Loan, type RunContext } from './run-context.js';
import { reroute } from './reroute.js';
import { orderedMap, runAll } from './scheduler.js';

/**
 * Rows (dense) or keys (sparse) per output range: a power of two small enough that assembling
 * one range (its pieces, maybe read back from disk, and the result) fits one task's share of
 * the budget, between 2^MIN_RANGE_SHIFT and 2^MAX_RANGE_SHIFT, and at most MAX_RANGES ranges.
 * The floor is low so that at small budgets a range still fits its share: one that does not
 * runs alone, next to the kept output rows and the range assembled before it, and need not fit.
 */
const MIN_RANGE_SHIFT = 6;
const MAX_RANGE_SHIFT = 20;
const MAX_RANGES = 4096;

/**
 * Direct outputs are staged (DirectStaging in src/types/tasks: written task by task, then put in
 * row order by interleave tasks) from this many input rows, when the budget has room for the row
 * positions and a spare column of each width. Below it a task's in-place writes stay in cache.
 * A partition's rows are about every P-th row of the input: written in place, each value
 * touches its own cache line (window6, 10M rows x 30 columns: half of the workers' time).
 * Tests lower it.
 */
export const directStaging = { minRows: 1 << 17 };

/** Dense output arrays of one fixed-width column, indexed by row id (direct outputs). */
interface DenseColumn {
  field: FieldDesc;
  values: TypedArray;
  /**
   * The validity bitmap (Arrow's bit order) as 32-bit words: every row's bit set, none past the
   * last row; tasks clear their NULLs' bits. Ranges of rows are views of it (no copy).
   */
  valid: Int32Array;
}

/** Staged direct outputs' bookkeeping (OutputRanges.newStaging). */
interface Staging {
  /** Row r's position in every staged column (int32: the interleave gathers by it). */
  pos: Int32Array;
  /** [0]: positions the tasks have claimed (Atomics.add). */
  claim: Uint32Array;
  /** By bytes a row: the array the next column of that width is put in row order into. */
  spares: Map<number, Uint8Array>;
  /** Pooled: `pos` and the first spares are the pool's buffers (collected outputs; see finishStaged). */
  pooled: boolean;
}

/** Staging takes at most this part of the budget (1/6). */
const STAGING_BUDGET_PART = 6;

/** The fewest rows an interleave task is given (fewer rows: fewer tasks). */
const INTERLEAVE_MIN_ROWS = 1 << 16;

/** Bytes of dense outputs of fixed widths `widths` (bool: 1) for `rows` rows: values and validity bitmaps. */
export function denseOutputBytes(widths: number[], rows: number): number {
  return widths.reduce((t, w) => t + rows * w + 4 * Math.ceil(rows / 32), 0);
}

/** A validity bitmap of `rows` rows as words: all valid, bits past the last row clear. */
function allValid(rows: number): Int32Array {
  const words = sharedAlloc(Int32Array, Math.ceil(rows / 32));
  words.fill(-1);
  // (1 << 31) - 1 wraps to 0x7fffffff in an Int32Array, as wanted.
  if (rows & 31) words[words.length - 1] = (1 << (rows & 31)) - 1;
  return words;
}

/** One key range of sparse outputs, in key order: `ids[k]` is row k's key. */
export interface SparseRange {
  base: number;
  end: number;
  length: number;
  ids: Uint32Array;
  columns: A.Data[];
  /** Bytes the columns hold under `<name>.out.assembled` until `OutputRanges.consumed`. */
  bytes: number;
}

/** One range of dense outputs: rows [base, base + rows) as arrow Data in row-id order. */
export interface DenseRange {
  base: number;
  columns: A.Data[];
  /** Bytes the columns hold under `<name>.out.assembled` (0: views of the dense arrays). */
  bytes: number;
}

/**
 * The kernel outputs of a blocking stage, by row id of its (left) input. Dense outputs (one
 * row per input row: window, asofJoin) go one of two ways, chosen up front by the budget, with
 * the same results:
 * - direct: every output column fixed-width and all of them fit the budget whole: dense shared
 *   arrays indexed by row id (values, and validity bitmaps), written in place by the tasks
 *   (one scatter, no exchange), sliced for the replay without a copy. When the caller keeps the
 *   whole result (`collected`: execute(), collect(), and these rows are the result), the dense
 *   arrays are the result's own columns, the caller's memory as the result is once handed
 *   over: they are not counted against the budget and need not fit it (routed, the same bytes
 *   went to disk and came back into a result just as big: window6 at 1 GiB spilled 2.6 GB).
 *   Only a bool column's values (a byte a row, packed into the result's bits) are not the
 *   result: those are counted, and must fit;
 * - routed: output rows with their row ids go to an exchange by row-id range (kept or spilled),
 *   and each range is made dense by an assemble task when the replay reaches it.
 * Sparse outputs (`sparse`: any number of rows per key, e.g. one per group keyed by its first
 * row id, or a left row's join matches) are always routed; each range is put in key order
 * (rows of one key in the order their task wrote them) by an assembleSparse task.
 */
export class OutputRanges {
  readonly exchange: Exchange;
  readonly shift: number;
  readonly ranges: number;
  private readonly rowBytes: number;
  private readonly dense: DenseColumn[] | null = null;
  private readonly denseReservation: Reservation;
  /** Assembled ranges' columns, from their task's end until the consumer moves past them. */
  private readonly assembledReservation: Reservation;
  /** Output ranges routed again by finer key ranges (sparseRanges), released with the rest. */
  private readonly cuts: Exchange[] = [];
  /** Staged direct outputs (see directStaging) until finishStaged. */
  private staging: Staging | null = null;
  private readonly stagingReservation: Reservation;
  /** Sparse outputs that are the run's result: assembled in shared memory (src/columns/arena TransferArena). */
  private readonly sharedSparse: boolean;
  /** The caller keeps every output row (the constructor's `collected`). */
  private readonly collected: boolean;

  constructor(
    private readonly ctx: RunContext,
    name: string,
    readonly fields: FieldDesc[],
    /** Size of the key space: input rows (dense), or keys [0, rows) (sparse). */
    readonly rows: number,
    /** Sparse: outputs for some keys of [0, rows) only (group-by, join), assembled with their keys. */
    readonly sparse = false,
    /** Bytes direct outputs must leave free: what the kernel tasks in flight will borrow. */
    leaveForTasks = ctx.limits.headroom,
    /**
     * The caller keeps every output row: direct outputs are the result's columns, not counted;
     * sparse ones are assembled in shared memory.
     */
    collected = false,
    /** The kernel's tasks can stage direct outputs (claimStaging, stageDirect). */
    stageable = false,
  ) {
    const rowBytes = outputRowBytes(fields);
    this.rowBytes = rowBytes;
    this.sharedSparse = sparse && collected;
    this.collected = collected;
    // Assembling a range holds its pieces (maybe read back), their concatenation and the result.
    const fit = Math.floor(ctx.limits.taskBytes / (3 * (rowBytes + 8)));
    let shift = Math.max(MIN_RANGE_SHIFT, Math.min(MAX_RANGE_SHIFT, Math.floor(Math.log2(Math.max(2, fit)))));
    while (Math.ceil(rows / 2 ** shift) > MAX_RANGES) shift++;
    this.shift = shift;
    this.ranges = Math.max(1, Math.ceil(rows / 2 ** shift));
    this.exchange = new Exchange(ctx.exchangeEnv(), `${name}.out`, fields, this.ranges);
    this.denseReservation = ctx.budget.reserve(`${name}.out.dense`);
    this.assembledReservation = ctx.budget.reserve(`${name}.out.assembled`);
    this.stagingReservation = ctx.budget.reserve(`${name}.out.staging`);
    const widths = fields.map((f) => fixedWidth(f.type));
    const counted = collected ? rows * fields.filter((f) => f.type.kind === 'bool').length : denseOutputBytes(widths, rows);
    if (!sparse && widths.every((w) => w > 0) && this.denseReservation.tryGrow(counted, leaveForTasks)) {
      try {
        this.dense = fields.map((field, c) => ({
          field,
          values: sharedAlloc(widths[c] === 1 ? Uint8Array : (typeToArrow(field.type).ArrayType as TypedArrayConstructor), rows),
          valid: allValid(rows),
        }));
      } catch (err) {
        // Collected outputs are not bounded by the budget: the system may refuse them.
        this.release();
        const bytes = formatBytes(denseOutputBytes(widths, rows));
        throw new ExecutionError('MEMORY_EXHAUSTED', `${name}: its output columns (${bytes}) could not be allocated: ${(err as Error).message ?? String(err)}`, { bytes: denseOutputBytes(widths, rows) }, { cause: err });
      }
      ctx.handsOutShared(denseOutputBytes(widths, rows));
      if (stageable && rows >= directStaging.minRows && rows <= 0x7fffffff) this.staging = this.newStaging(widths, leaveForTasks);
    }
  }

  /**
   * Row positions and a spare values array of each width, if the budget has room (else null:
   * written in place). For collected outputs they are the pool's buffers: the positions go back
   * to it and each spare becomes a result column, whose place in the pool the column it was
   * staged in takes (finishStaged), so a later run rewrites this memory instead of faulting in
   * fresh pages (window1, 10M rows: memory a warm run touched for the first time ~520 -> ~390 MiB).
   */
  private newStaging(widths: number[], leaveForTasks: number): Staging | null {
    const rows = this.rows;
    const distinct = [...new Set(widths)];
    const bytes = 4 * rows + 4 + distinct.reduce((t, w) => t + w * rows, 0);
    // A speed-up, not worth a spill: only with room left for the kernel tasks' loans and as a
    // small part of the budget (window6 at the default 1 GiB: 120 MB). (Twice the loans kept
    // window6 from staging once its input stayed in memory, 6.3-6.5 -> 7.7 s.)
    if (bytes > this.ctx.budget.limit / STAGING_BUDGET_PART || !this.stagingReservation.tryGrow(bytes, leaveForTasks)) return null;
    if (this.collected) {
      // The room is there (made by evicting the pool's oldest cached buffers if need be, which
      // measured fewer first touches than keeping them: asof ~170 against ~275 MiB a warm run):
      // the pool's buffers take it instead, each growing the reservation by its size.
      this.stagingReservation.shrink(bytes);
      const staging = this.pooledStaging(distinct, leaveForTasks);
      if (staging) return staging;
      if (!this.stagingReservation.tryGrow(bytes, leaveForTasks)) return null;
    }
    try {
      return {
        pos: sharedAlloc(Int32Array, rows, 'overwritten'),
        claim: sharedAlloc(Uint32Array, 1),
        spares: new Map(distinct.map((w) => [w, sharedAlloc(Uint8Array, w * rows, 'overwritten')])),
        pooled: false,
      };
    } catch {
      // Not bounded by the budget when collected: the system may refuse it; in place then.
      this.stagingReservation.free();
      return null;
    }
  }

  /**
   * newStaging's positions and spares from the pool, leaving `leave` bytes of the budget free
   * (a lent buffer may be bigger than asked); null when it cannot lend them (none taken then).
   */
  private pooledStaging(widths: number[], leave: number): Staging | null {
    const rows = this.rows;
    const pool = this.ctx.pool;
    const taken: SharedArrayBuffer[] = [];
    const take = (bytes: number): SharedArrayBuffer | null => {
      let b: SharedArrayBuffer | null = null;
      try {
        b = pool.tryTake(this.stagingReservation, bytes, 'near');
      } catch {
        // the system refused a fresh buffer: as the caller's own allocation would be
      }
      if (b) taken.push(b);
      return b;
    };
    const pos = take(4 * rows);
    const spares = new Map<number, Uint8Array>();
    for (const w of widths) {
      const b = take(w * rows);
      if (b === null) continue;
      // A spare becomes a result column: what its rows leave of a bigger buffer is cleared, not
      // an earlier run's values (a lent buffer may be up to 1.125x the size asked).
      new Uint8Array(b, w * rows).fill(0);
      spares.set(w, new Uint8Array(b, 0, w * rows));
    }
    if (pos === null || spares.size !== widths.length || this.ctx.budget.free < leave) {
      for (const b of taken) pool.give(this.stagingReservation, b);
      return null;
    }
    return { pos: new Int32Array(pos, 0, rows), claim: sharedAlloc(Uint32Array, 1), spares, pooled: true };
  }

  /**
   * Staged direct outputs put in row order, one column at a time, its rows shared out among
   * the threads: each column's values go to the spare of its width, and its staged array is the
   * spare for the next (so staging holds one column of each width beyond the outputs).
   * Run once every kernel task has ended.
   */
  async finishStaged(): Promise<void> {
    const staging = this.staging;
    if (!staging) return;
    const ctx = this.ctx;
    const rows = this.rows;
    if (staging.claim[0] !== rows) throw new ExecutionError('INTERNAL', `internal: staged direct outputs hold ${staging.claim[0]} rows, expected ${rows}; refusing to return a wrong result`);
    const pieces = Math.max(1, Math.min(ctx.concurrency, Math.ceil(rows / INTERLEAVE_MIN_ROWS)));
    const step = Math.ceil(rows / pieces);
    for (const d of this.dense!) {
      const width = d.values.BYTES_PER_ELEMENT;
      const spare = staging.spares.get(width)!;
      const src = bufRefOf(d.values);
      await Promise.all(
        Array.from({ length: pieces }, (_, k) =>
          ctx.task({ kind: 'interleave', pos: bufRefOf(staging.pos), src, dst: bufRefOf(spare), width, start: k * step, end: Math.min(rows, (k + 1) * step) }),
        ),
      );
      const staged = d.values;
      d.values = new (staged.constructor as TypedArrayConstructor)(spare.buffer, spare.byteOffset, staged.length);
      staging.spares.set(width, new Uint8Array(staged.buffer, staged.byteOffset, staged.byteLength));
    }
    if (staging.pooled) this.returnStaging(staging);
    this.staging = null;
    this.stagingReservation.free();
  }

  /**
   * Pooled staging once the columns are in row order: the positions go back to the pool; each
   * spare taken from it now holds a result column (it leaves the pool's accounting when the
   * reservation is freed), and the array left over of each width, a staged column no result
   * references, takes its place in the pool while the budget has room.
   */
  private returnStaging(staging: Staging): void {
    const pool = this.ctx.pool;
    const r = this.stagingReservation;
    pool.give(r, staging.pos.buffer as SharedArrayBuffer);
    for (const left of staging.spares.values()) {
      const b = left.buffer as SharedArrayBuffer;
      if (r.tryGrow(b.byteLength)) pool.give(r, b);
    }
  }

  get direct(): boolean {
    return this.dense !== null;
  }

  /** Where a kernel task writes; `buffer`: its output loan (routed mode). */
  routing(buffer: SharedArrayBuffer | null): OutputRouting {
    if (this.dense) {
      const staging = this.staging ? { pos: bufRefOf(this.staging.pos), claim: bufRefOf(this.staging.claim) } : null;
      return { kind: 'direct', columns: this.dense.map((d) => ({ values: bufRefOf(d.values), valid: bufRefOf(d.valid) })), staging };
    }
    return { kind: 'routed', rangeShift: this.shift, ranges: this.ranges, buffer };
  }

  /**
   * Every range in order: rows [base, base + rows) of the outputs as arrow Data in row-id
   * order; slices of the dense arrays, or made dense by assemble tasks (at most one per thread
   * in flight, plus one waiting).
   */
  assembled(): AsyncGenerator<DenseRange> {
    const ctx = this.ctx;
    const dense = this.dense;
    const self = this;
    async function* ranges(): AsyncGenerator<number> {
      for (let r = 0; r < self.ranges; r++) yield r;
    }
    if (dense) {
      return (async function* () {
        for await (const r of ranges()) {
          const base = r * 2 ** self.shift;
          const rows = Math.min(2 ** self.shift, self.rows - base);
          yield { base, columns: dense.map((d) => denseSlice(d, base, rows)), bytes: 0 };
        }
      })();
    }
    return orderedMap(
      ranges(),
      async (r) => {
        const base = r * 2 ** this.shift;
        const rows = Math.min(2 ** this.shift, this.rows - base);
        const input = this.exchange.inputFor(r);
        const have = this.exchange.rowsOf(r);
        if (have !== rows) throw new ExecutionError('INTERNAL', `internal: output range ${r} holds ${have} rows, expected ${rows}; refusing to return a partial result`);
        // The pieces (read back whole), their concatenation, ids and positions, and the gathered result.
        const ex = this.exchange;
        const bytes = ex.spillBytesOf(r) + ex.memoryBytesOf(r) + ex.spilledDataBytesOf(r) + rows * (this.rowBytes + 16) + LOAN_SLACK;
        const [scratch] = await ctx.loans('assemble', [bytes]);
        try {
          const done = await ctx.clock.during('assemble', ctx.task({ kind: 'assemble', input, base, rows, scratch: scratch!.buffer }));
          this.exchange.drop(r);
          const columns = done.value.columns.map(rebuildData);
          return { base, columns, bytes: this.holdAssembled(columns, scratch!) };
        } finally {
          scratch!.release();
        }
      },
      ctx.concurrency,
    );
  }

  /**
   * Sparse outputs: every range in order, its rows in key order with their keys (assembled by
   * tasks, at most one per thread in flight plus one waiting; empty ranges without a task).
   * A range whose rows one assemble task cannot hold (keys with many rows each: a join row's
   * matches) is first routed again by finer ranges of its keys (idRange), each assembled alone.
   */
  sparseRanges(): AsyncGenerator<SparseRange> {
    const ctx = this.ctx;
    const self = this;
    const assembleBytes = (ex: Exchange, p: number): number => loadBytesOf(ex, p) + 8 * ex.rowsOf(p) + 2 * LOAN_SLACK;
    async function* unitsOf(ex: Exchange, p: number, base: number, end: number, shift: number): AsyncGenerator<SparseUnit> {
      const bytes = assembleBytes(ex, p);
      // Above its share an assemble task waits to run alone, next to what the exchanges hold:
      // only a range that could not get half the budget then is cut (a cut moves its rows again).
      if (ex.rowsOf(p) === 0 || bytes <= Math.max(ctx.limits.taskBytes, ctx.budget.limit / 2) || end - base <= 1 || shift === 0) {
        yield { ex, p, base, end };
        return;
      }
      // Sub-ranges of about half a task's share each, if the keys spread the rows.
      const sub = Math.max(0, shift - Math.ceil(Math.log2(Math.ceil(bytes / (ctx.limits.taskBytes / 2)))));
      const partitions = Math.ceil((end - base) / 2 ** sub);
      const finer = await reroute(ctx, ex, p, { kind: 'idRange', base, shift: sub, partitions }, `${ex.name}.cut`);
      self.cuts.push(finer);
      for (let q = 0; q < partitions; q++) {
        const b = base + q * 2 ** sub;
        yield* unitsOf(finer, q, b, Math.min(end, b + 2 ** sub), sub);
      }
    }
    async function* units(): AsyncGenerator<SparseUnit> {
      for (let r = 0; r < self.ranges; r++) {
        const base = r * 2 ** self.shift;
        yield* unitsOf(self.exchange, r, base, Math.min(base + 2 ** self.shift, Math.max(self.rows, 1)), self.shift);
      }
    }
    return orderedMap(
      units(),
      async ({ ex, p, base, end }) => {
        const rows = ex.rowsOf(p);
        if (rows === 0) return { base, end, length: 0, ids: new Uint32Array(0), columns: this.fields.map(emptyOfField), bytes: 0 };
        const input = ex.inputFor(p);
        const [scratch] = await ctx.loans('assemble', [assembleBytes(ex, p)]);
        try {
          const done = await ctx.clock.during('assemble', ctx.task({ kind: 'assembleSparse', input, base, end, copyUpTo: ctx.limits.copyBytes, sharedResults: this.sharedSparse, scratch: scratch!.buffer }));
          ex.drop(p);
          const v = done.value;
          if (this.sharedSparse) ctx.handsOutShared(v.columns.reduce((t, c) => t + descBytes(c), 0));
          if (v.length !== rows) throw new ExecutionError('INTERNAL', `internal: output range ${base}..${end} holds ${v.length} rows, expected ${rows}; refusing to return a partial result`);
          const ids = rebuildData(v.rowIds);
          const columns = v.columns.map(rebuildData);
          return { base, end, length: v.length, ids: ids.values as Uint32Array, columns, bytes: this.holdAssembled([ids, ...columns], scratch!) };
        } finally {
          scratch!.release();
        }
      },
      ctx.concurrency,
    );
  }

  /**
   * A task's result columns stay counted after its loan: the loan goes back and the same bytes
   * are reserved at once (no await between, so no other task can take them first).
   */
  private holdAssembled(columns: A.Data[], loan: Loan): number {
    const bytes = columns.reduce((t, c) => t + dataBytes(c), 0);
    loan.release();
    this.assembledReservation.grow(bytes);
    return bytes;
  }

  /** The consumer is done with a range (its rows went on to the caller). */
  consumed(range: { bytes: number }): void {
    this.assembledReservation.shrink(range.bytes);
    range.bytes = 0;
  }

  release(): void {
    this.exchange.release();
    for (const cut of this.cuts) cut.release();
    this.denseReservation.free();
    this.assembledReservation.free();
    this.staging = null;
    this.stagingReservation.free();
  }
}

function emptyOfField(f: FieldDesc): A.Data {
  return emptyData(typeToArrow(f.type));
}

/** One assemble task's worth of sparse outputs: destination `p` of `ex`, keys [base, end). */
interface SparseUnit {
  ex: Exchange;
  p: number;
  base: number;
  end: number;
}

/**
 * Rows [start, start + length) of a dense output as arrow Data: values and validity are views,
 * not copies. `start` is a range's first row, a multiple of 2^MIN_RANGE_SHIFT: its bits begin
 * a byte; the bits past `length` in its last byte are the next range's rows, or clear after
 * the last row.
 */
function denseSlice(d: DenseColumn, start: number, length: number): A.Data {
  const type = typeToArrow(d.field.type);
  if (start & 7) throw new ExecutionError('INTERNAL', `internal: a dense output range starts at row ${start}, not on a byte of its validity`);
  const bits = new Uint8Array(d.valid.buffer, d.valid.byteOffset + (start >>> 3), (length + 7) >>> 3);
  const nullCount = length - countSet(bits, 0, length);
  const nullBitmap = nullCount > 0 ? bits : undefined;
  if (d.field.type.kind === 'bool') {
    const { bitmap } = bytesToBitmap(d.values.subarray(start, start + length) as Uint8Array, length);
    return A.makeData({ type: type as A.Bool, length, nullCount, nullBitmap, data: bitmap });
  }
  return A.makeData({ type: type as A.Int, length, nullCount, nullBitmap, data: d.values.subarray(start, start + length) as Int32Array });
}

/**
 * Past this many partitions' worth of input (each one task's share), a budget under
 * SMALL_BUDGET is refused up front (MEMORY_BUDGET_TOO_SMALL): its tasks' shares are a few MiB,
 * and the pieces every exchange cuts, (input / budget)^2 of them, are so small that fixed costs
 * per piece take over (80 MB of window input: 4 MiB 18.7 s, 2 MiB 102 s, against 3.2 s
 * unbounded). From SMALL_BUDGET up the input's size is not limited: 100M rows (6.1 GiB) ran at
 * 64 MiB, 1/100 of the data, in 2.5 minutes.
 */
const MAX_PARTITIONS = 2048;
const SMALL_BUDGET = 32 * 2 ** 20;

/**
 * The most hash partitions a first routing makes (four times that when the input is far over
 * the budget, see partitionCount), however far the input is over the budget:
 * every routing task sends a chunk to every partition, so the coordinator handles
 * (input / budget)^2 chunks (a 30M-row window at 64 MiB: 937 partitions, ~560K chunks, their
 * descriptors and Arrow Data held the main thread: 93 s, workers idle 70%). Past this count a
 * partition too big for one task is split again by a second hash level (KernelUnits.split),
 * a few chunks per spilled piece: the same job ran in 53 s, VmHWM 854 -> 632 MiB.
 */
export const FIRST_LEVEL_PARTITIONS = 128;

/** The smallest piece of a read slice a wider first routing may send each destination. */
const MIN_FIRST_PIECE = 24 * 1024;

/** The same for an operator that asks for one level (`oneLevel`): its splits cost more than small pieces. */
const MIN_ONE_LEVEL_PIECE = 8 * 1024;

/**
 * Hash partitions for an input of about `bytes` (rows of `inputRowBytes`), each row needing
 * `taskRowBytes` in its kernel task: enough that every task fits 70% of a task's share of the
 * budget, up to FIRST_LEVEL_PARTITIONS (bigger partitions are split again); at least the
 * configured count. `oneLevel`: an operator whose splits cost more than smaller pieces in the
 * first exchange (ASOF: a split re-routes both sides) gets up to 4x FIRST_LEVEL_PARTITIONS
 * while pieces of a read slice stay at least MIN_ONE_LEVEL_PIECE.
 */
export function partitionCount(ctx: RunContext, bytes: number | null, inputRowBytes: number, taskRowBytes: number, oneLevel = false): number {
  if (bytes === null || bytes <= 0) return ctx.config.partitions;
  const parts = partitionsNeeded(ctx, bytes, inputRowBytes, taskRowBytes);
  if (parts > MAX_PARTITIONS && ctx.budget.limit < SMALL_BUDGET) {
    const minimum = Math.min(SMALL_BUDGET, Math.ceil((ctx.budget.limit * parts) / MAX_PARTITIONS / 2 ** 20) * 2 ** 20);
    throw budgetTooSmall(ctx.budget.limit, minimum, `an input of about ${formatBytes(bytes)} would need ${parts} partitions of one task's share each`);
  }
  // Splitting moves every row of a partition again, so an input that needs many partitions gets
  // up to four times FIRST_LEVEL_PARTITIONS at once, as long as each destination's piece of one
  // read slice stays at least MIN_FIRST_PIECE (100M rows at 256 MiB: 512 partitions, VmHWM 740
  // -> 555 MiB, the split's buffer churn gone; at 64 MiB 512 partitions cut 6 KiB pieces and
  // the run took 264 s instead of 130 s). Below 4x, a few splits cost less than many more
  // pieces in every exchange (30M rows at 256 MiB: 507-546 MiB with 128, 592-676 with 235).
  const wide = Math.min(4 * FIRST_LEVEL_PARTITIONS, Math.floor(ctx.limits.readBytes / (oneLevel ? MIN_ONE_LEVEL_PIECE : MIN_FIRST_PIECE)));
  const first = oneLevel || parts > 4 * FIRST_LEVEL_PARTITIONS ? Math.max(FIRST_LEVEL_PARTITIONS, wide) : FIRST_LEVEL_PARTITIONS;
  return Math.max(ctx.config.partitions, Math.min(parts, first));
}

/** Partitions for `bytes` of input whose tasks each fit 70% of a task's share (unbounded). */
export function partitionsNeeded(ctx: RunContext, bytes: number, inputRowBytes: number, taskRowBytes: number): number {
  return Math.ceil(((bytes / Math.max(1, inputRowBytes)) * taskRowBytes) / (0.7 * ctx.limits.taskBytes));
}

/** How much the largest hash partition may exceed the mean (keys are not spread perfectly). */
export const PARTITION_SKEW = 1.5;
const EXCHANGE_SLACK = 1.3;

/**
 * Partitions for a stage whose outputs could be direct (dense arrays by row id): at least
 * `base`, more when smaller tasks let the dense outputs fit next to the input exchange, which
 * saves the output exchange, its spill and the assemble pass. `taskRowBytes`: scratch per row.
 */
export function partitionsForDirect(ctx: RunContext, base: number, rows: number, exchangeBytes: number, denseBytes: number, taskRowBytes: number): number {
  if (exchangeBytes > ctx.budget.limit - ctx.limits.headroom) return base; // the exchange spills anyway
  // Exchange slabs are pooled buffers, a little larger than the rows they hold.
  const room = ctx.budget.limit - ctx.budget.used - EXCHANGE_SLACK * exchangeBytes - denseBytes;
  if (room <= 0) return base;
  const parts = Math.ceil((PARTITION_SKEW * ctx.concurrency * rows * taskRowBytes) / room);
  return parts > base && parts <= Math.min(8 * base, MAX_PARTITIONS / 4) ? parts : base;
}

/** What the kernel tasks in flight will borrow: the `concurrency` largest needs, with a margin. */
export function bytesForTasks(ctx: RunContext, needs: number[]): number {
  const top = needs.sort((a, b) => b - a).slice(0, ctx.concurrency);
  return Math.min(ctx.limits.headroom, Math.ceil(1.25 * top.reduce((t, b) => t + b + LOAN_SLACK, 0)));
}

/**
 * Scratch to load destination p (Exchange.inputFor): spilled runs read whole, then their columns
 * copied out; pieces that overlap in row ids are sorted by id (a permutation and one more copy).
 */
export function loadBytesOf(ex: Exchange, p: number): number {
  const data = ex.memoryBytesOf(p) + ex.spilledDataBytesOf(p);
  return data + ex.spillBytesOf(p) + (ex.mayInterleave(p) ? data + 12 * ex.rowsOf(p) : 0);
}

/** Column bytes (with the row ids) of destination p's rows, in memory or spilled. */
export function dataBytesOf(ex: Exchange, p: number): number {
  return ex.memoryBytesOf(p) + ex.spilledDataBytesOf(p);
}

/**
 * A bound of loadBytesOf from the rows' content only (spilled or out of order: one more copy,
 * and the sort by id), the same whether or not they spilled or arrived out of order, and however
 * they were cut into chunks (Exchange.contentBytesOf: chunk and spilled-batch bytes differ by
 * their padding and framing, which depend on what spilled when).
 */
export function stableLoadBytesOf(ex: Exchange, p: number): number {
  return 2 * ex.contentBytesOf(p) + 12 * ex.rowsOf(p);
}

/** One kernel task's rows: destination `p` of each side's exchange (left first). */
export interface PartitionUnit {
  sides: Exchange[];
  p: number;
  /** How many times these rows were split again (0: the first partitioning). */
  level: number;
  /**
   * Right rows from outside the unit that its kernel may need (an ASOF key range: the
   * greatest right rows below it and the least above it, src/coordinator/asof-range.ts).
   */
  outside?: { below: ChunkDesc[]; above: ChunkDesc[] };
}

/** Units an operator cut an oversized unit into (in order, in the unit's slot), and the exchanges they live in. */
export interface OversizedSplit {
  units: PartitionUnit[];
  owned: Exchange[];
  /** Each unit's task starts only once the one before it is done (window ranges pass on a carry). */
  chained: boolean;
}

/**
 * What a blocking operator tells the shared path about one partition's kernel task; `O` is
 * where its outputs go (routed by row id, or the rows themselves: ./kernel-rows.ts).
 */
export interface KernelJob<O = OutputRouting> {
  /** Rows the task reads (both sides). */
  rows: number;
  /** Scratch bytes the task needs by the operator's estimate. */
  scratchBytes: number;
  /** Bytes of the output rows (fixed-width part; more is reported as extra memory). */
  outputBytes: number;
  /**
   * Scratch and output by an estimate from the rows and their column bytes only (not from
   * whether they spilled or arrived out of order, nor from what earlier tasks measured): when
   * given, whether to split the unit is decided from it alone, so the decision is the same on
   * every run (rows outputs, whose order follows the splits).
   */
  stableBytes?: number;
  /** Builds the task once its loans are granted. */
  build(out: O, scratch: SharedArrayBuffer): WindowTask | AsofTask | GroupByTask | WindowGroupByTask | JoinTask;
  /** Checks the reply (rows in = rows out) and releases the partition's inputs. */
  done(result: KernelResult): void;
}

/** A blocking operator's kernel, as the shared path runs it. */
export interface KernelOperator<O = OutputRouting> {
  name: string;
  /** Positions of the hash keys among each side's routed columns; null: rows cannot be split again. */
  splitKeys: number[][] | null;
  /** The sides whose rows the `kernel` progress counts (the rows the kernel computes outputs for). */
  measured: number[];
  /** The task for a unit, or null when it has nothing to compute (e.g. no left rows). */
  job(unit: PartitionUnit): KernelJob<O> | null;
  /**
   * A unit that needs `need` bytes, more than a task's share, and that hashing cannot split
   * (no split keys, or one key holds its rows): cut by the operator's own order (key ranges),
   * or null to run it whole (alone; more than the whole budget is MEMORY_BUDGET_TOO_SMALL).
   */
  oversized?(unit: PartitionUnit, need: number): Promise<OversizedSplit | null>;
}

/** Splits stop after this many levels, or when one sub-partition keeps most rows (one hot key). */
const MAX_SPLIT_LEVEL = 3;

/** Jobs smaller than this teach nothing about per-row memory (fixed costs dominate them). */
const LEARN_MIN_ROWS = 1024;

/**
 * How one unit's task runs: split again by hash first, cut by the operator's order first
 * (KernelOperator.oversized), or with loans of these sizes (`need`: what decided it).
 */
export type UnitPlan<O> =
  | { kind: 'empty' }
  | { kind: 'split'; need: number }
  | { kind: 'cut'; need: number }
  | { kind: 'run'; job: KernelJob<O>; scratchBytes: number; outputBytes: number; need: number };

/**
 * What the drivers of kernel tasks share (runKernels below, streamKernelRows in ./kernel-rows):
 * loan sizes from the operator's estimates and from what earlier tasks measured per row, the
 * decision to split a unit too big for one task's share, the split itself (a re-mix of its
 * keys' hash, both sides alike, into sub-units that fit) or the operator's own cut when hashing
 * cannot help, and the `kernel` progress.
 */
export class KernelUnits<O> {
  private perRow = 0;
  private readonly owned: Exchange[] = [];
  /** Units the operator would not cut: they run whole. */
  private readonly whole = new Set<PartitionUnit>();

  constructor(
    private readonly ctx: RunContext,
    readonly op: KernelOperator<O>,
    units: PartitionUnit[],
    /** Whether outputs need a loan of their own (not written in place). */
    private readonly outputLoan: boolean,
  ) {
    // Progress in measured rows: a split unit's sub-units hold exactly its rows, so the total
    // known once the units are is never exceeded and is reached when the last unit is done.
    ctx.progress.announce('kernel', units.reduce((t, u) => t + this.measuredRows(u), 0));
    ctx.progress.start('kernel');
  }

  measuredRows(unit: PartitionUnit): number {
    return this.op.measured.reduce((t, s) => t + unit.sides[s]!.rowsOf(unit.p), 0);
  }

  plan(unit: PartitionUnit): UnitPlan<O> {
    const job = this.op.job(unit);
    if (!job) return { kind: 'empty' };
    const scratchBytes = Math.max(job.scratchBytes, Math.ceil(this.perRow * 1.15 * job.rows)) + LOAN_SLACK;
    const outputBytes = this.outputLoan ? job.outputBytes + LOAN_SLACK : 0;
    const need = job.stableBytes ?? scratchBytes + outputBytes;
    if (need > this.ctx.limits.taskBytes && job.rows > 1) {
      if (this.op.splitKeys && unit.level < MAX_SPLIT_LEVEL) return { kind: 'split', need };
      if (this.op.oversized && !this.whole.has(unit)) return { kind: 'cut', need };
    }
    return { kind: 'run', job, scratchBytes, outputBytes, need };
  }

  /** A unit with nothing to compute: its rows count as done and go. */
  skip(unit: PartitionUnit): void {
    this.ctx.progress.add('kernel', this.measuredRows(unit));
    for (const side of unit.sides) side.drop(unit.p);
  }

  /**
   * The operator's cut of a unit planned `cut`: its sub-units, in order, never hashed again
   * (they may borrow rows from their neighbours, `outside`; one still too big goes back to the
   * operator); or, when the operator declines, the unit itself, which then runs whole.
   */
  async cut(unit: PartitionUnit, need: number): Promise<{ units: PartitionUnit[]; chained: boolean }> {
    const cut = await this.op.oversized!(unit, need);
    if (!cut) {
      this.whole.add(unit);
      return { units: [unit], chained: false };
    }
    this.owned.push(...cut.owned);
    return { units: cut.units.map((sub) => ({ ...sub, level: Math.max(sub.level, MAX_SPLIT_LEVEL) })), chained: cut.chained };
  }

  /**
   * Runs a planned task with its loans; `take` receives the reply and the output loan (null
   * without one), which it keeps or releases.
   */
  async run(unit: PartitionUnit, plan: Extract<UnitPlan<O>, { kind: 'run' }>, routing: (buffer: SharedArrayBuffer | null) => O, take: (res: KernelResult, output: Loan | null) => Promise<void>): Promise<void> {
    const { ctx, op } = this;
    const { job, need } = plan;
    const [scratch, output] = await ctx.loans(op.name, this.outputLoan ? [plan.scratchBytes, plan.outputBytes] : [plan.scratchBytes], [1]).catch((err: unknown) => {
      // Uncut, a unit above its share runs alone, next to the spillable data (up to half the
      // budget): when even that does not fit, the budget is what is too small.
      if (err instanceof ExecutionError && err.code === 'MEMORY_EXHAUSTED' && need > ctx.limits.taskBytes) {
        throw budgetTooSmall(ctx.budget.limit, Math.ceil((2 * need) / 2 ** 20) * 2 ** 20, `one ${op.name} task needs ${formatBytes(need)} and its rows cannot be cut smaller`);
      }
      throw err;
    });
    let outputLoan: Loan | null = output ?? null;
    const rows = this.measuredRows(unit);
    try {
      const res = await ctx.task(job.build(routing(output?.buffer ?? null), scratch!.buffer));
      scratch!.release();
      if (job.rows >= LEARN_MIN_ROWS) this.perRow = Math.max(this.perRow, (res.scratch.used + res.scratch.overflow) / job.rows);
      ctx.stats.overflowBytes += res.scratch.overflow;
      job.done(res.value);
      const loan = outputLoan;
      outputLoan = null;
      await take(res.value, loan);
      ctx.progress.add('kernel', rows);
    } finally {
      scratch!.release();
      outputLoan?.release();
    }
  }

  async split(unit: PartitionUnit, need: number): Promise<PartitionUnit[]> {
    const { ctx, op } = this;
    const keys = op.splitKeys!;
    // At least 4 parts: with fewer, a few keys land together too often.
    const parts = Math.min(256, Math.max(4, Math.ceil((2 * need) / ctx.limits.taskBytes)));
    const subs: Exchange[] = [];
    for (let s = 0; s < unit.sides.length; s++) {
      const routing = { kind: 'hash' as const, keyColumns: keys[s]!, partitions: parts, seed: ctx.config.seed, level: unit.level + 1 };
      subs.push(await reroute(ctx, unit.sides[s]!, unit.p, routing, `${op.name}.split${unit.level + 1}`));
      this.owned.push(subs[s]!);
    }
    // q = -1: every sub-unit's rows.
    const rowsOf = (q: number): number => subs.reduce((t, e) => t + (q < 0 ? e.totalRows : e.rowsOf(q)), 0);
    const level = unit.level + 1;
    const next: PartitionUnit[] = [];
    const total = rowsOf(-1);
    // Every row in one sub-unit after a re-mix is one hot key, or a few keys that met again;
    // an operator with its own cut (key ranges, correct for any number of keys) takes it now
    // rather than after more levels that would move every row again.
    const hot = (q: number): boolean => op.oversized !== undefined && rowsOf(q) === total;
    for (let q = 0; q < parts; q++) if (rowsOf(q) > 0) next.push({ sides: subs, p: q, level: hot(q) ? MAX_SPLIT_LEVEL : level });
    return next;
  }

  /** The exchanges of split units; call when no task can read them. */
  release(): void {
    for (const e of this.owned) e.release();
  }
}

/**
 * Runs the operator's kernel tasks, at most one per thread, each with its loans (scratch, and
 * an output buffer when outputs are routed); outputs go to `out`. A unit whose task would need
 * more than one task's share of the budget is first split again or cut (KernelUnits); sub-units
 * run in the slot of the unit they came from.
 */
export async function runKernels(ctx: RunContext, op: KernelOperator, units: PartitionUnit[], out: OutputRanges): Promise<void> {
  const k = new KernelUnits(ctx, op, units, !out.direct);
  const runUnit = async (unit: PartitionUnit): Promise<void> => {
    const plan = k.plan(unit);
    if (plan.kind === 'empty') return k.skip(unit);
    if (plan.kind === 'split' || plan.kind === 'cut') {
      // In the unit's slot, one after the other (so a chained cut's carries are in order).
      const subs = plan.kind === 'split' ? await k.split(unit, plan.need) : (await k.cut(unit, plan.need)).units;
      for (const sub of subs) await runUnit(sub);
      return;
    }
    await k.run(unit, plan, (buffer) => out.routing(buffer), async (res, loan) => {
      if (loan) await out.exchange.add(res, loan);
    });
  };
  try {
    await ctx.clock.during('kernel', runAll(units.map((u) => () => runUnit(u)), ctx.concurrency).then(() => out.finishStaged()));
    await out.exchange.seal();
  } finally {
    k.release();
  }
}

/**
 * The retained input replayed in order, each batch cut at range boundaries and passed with the
 * outputs of its rows to `combine` (which may drop rows or return null for none).
 */
export async function* replayWithOutputs(
  store: BatchStore,
  out: OutputRanges,
  combine: (batch: A.RecordBatch, outputs: A.Data[]) => A.RecordBatch | null,
): AsyncGenerator<A.RecordBatch> {
  const ranges = out.assembled()[Symbol.asyncIterator]();
  let current: DenseRange | null = null;
  const size = 2 ** out.shift;
  try {
    for await (const { batch, rowBase } of store.replay()) {
      for (let start = 0; start < batch.numRows; ) {
        const id = rowBase + start;
        while (current === null || id >= current.base + size) {
          if (current) out.consumed(current);
          const r = await ranges.next();
          if (r.done) throw new ExecutionError('INTERNAL', `internal: no output range for row ${id}`);
          current = r.value;
        }
        const offset = id - current.base;
        const len = Math.min(batch.numRows - start, size - offset);
        const piece = start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
        const cols = current.columns.map((c) => (offset === 0 && len === c.length ? c : c.slice(offset, len)));
        const res = combine(piece, cols);
        if (res && res.numRows > 0) yield res;
        start += len;
      }
    }
  } finally {
    await ranges.return?.(undefined);
  }
}

/**
 * The retained input replayed in order with sparse outputs keyed by input row id: each batch is
 * cut at range boundaries and passed to `combine` with the output rows of its rows (in key
 * order) and, for each, its row's position in the piece. Output rows keyed past the input's
 * last row (a join's unmatched right rows) go to `rest` afterwards, range by range.
 */
export async function* replayWithSparseOutputs(
  store: BatchStore,
  out: OutputRanges,
  combine: (batch: A.RecordBatch, outputs: A.Data[], local: Int32Array) => A.RecordBatch | null,
  rest: (outputs: A.Data[], ids: Uint32Array) => A.RecordBatch | null,
): AsyncGenerator<A.RecordBatch> {
  const ranges = out.sparseRanges()[Symbol.asyncIterator]();
  let current: SparseRange | null = null;
  let at = 0;
  const slice = (cur: SparseRange, a: number, b: number): A.Data[] => cur.columns.map((c) => (a === 0 && b === c.length ? c : c.slice(a, b - a)));
  try {
    for await (const { batch, rowBase } of store.replay()) {
      for (let start = 0; start < batch.numRows; ) {
        const id = rowBase + start;
        while (current === null || id >= current.end) {
          if (current !== null && at < current.length && current.ids[at]! < id) throw new ExecutionError('INTERNAL', `internal: output row keyed ${current.ids[at]} has no input row`);
          if (current) out.consumed(current);
          const r = await ranges.next();
          if (r.done) throw new ExecutionError('INTERNAL', `internal: no output range for row ${id}`);
          current = r.value;
          at = 0;
        }
        const len = Math.min(batch.numRows - start, current.end - id);
        const stop = id + len;
        let e = at;
        while (e < current.length && current.ids[e]! < stop) e++;
        const local = new Int32Array(e - at);
        for (let k = at; k < e; k++) local[k - at] = current.ids[k]! - id;
        const piece = start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
        const res = combine(piece, slice(current, at, e), local);
        if (res && res.numRows > 0) yield res;
        at = e;
        start += len;
      }
    }
    for (;;) {
      if (current !== null && at < current.length) {
        const res = rest(slice(current, at, current.length), current.ids.subarray(at));
        if (res && res.numRows > 0) yield res;
      }
      if (current) out.consumed(current);
      const r = await ranges.next();
      if (r.done) break;
      current = r.value;
      at = 0;
    }
  } finally {
    await ranges.return?.(undefined);
  }
}
