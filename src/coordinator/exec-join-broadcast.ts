/**
 * Broadcast hash join (inner, left, semi, anti) when the right input is small: no shuffle, no
 * retained left input, no output exchange.
 *
 *   right input read whole (its routed columns: keys and payload), made contiguous in shared
 *   memory ─► one build task: the hash table over it, in a buffer that stays reserved
 *   (src/worker/join-build-task) ─► the left input streamed in slices, each probed by a task in
 *   any thread (src/worker/join-probe-task), results back in input order as for row-local
 *   chains: each left row's matches in right input order, exactly the partitioned join's rows.
 *
 * When the right side turns out too big for its share of the budget (checked while reading
 * it), or one key has too many right rows for a slice's output to be bounded, the rows read so
 * far and the rest of the right input go to the partitioned join instead (./exec-join).
 *
 * Memory: the right columns and the table (at most BUILD_SHARE of the budget, counted), each
 * probe task's loans (its slice copy and scratch) and the results not yet taken
 * (`join.results`); slices are sized so a task's loans and result fit its share of what the
 * table leaves.
 */
import { emptyData } from '../io/arrow-input.js';
import * as A from 'apache-arrow';
import { schemaToArrow } from '../columns/arrow-types.js';
import { type Allocator, SharedArena } from '../columns/arena.js';
import { concatData, offsetsOf } from '../columns/gather.js';
import { inlineRecords, INLINE_RECORD_WORDS } from '../columns/inline-words.js';
import { batchBytes, batchCopyBytes, batchFromColumns, bufRefOf, dataBytes, descBytes, describeBatch, describeData, isAllShared, rebuildData, selectColumns, toKeyColumn, toSharedData } from '../columns/shared.js';
import { joinTableBytes, joinTableLayout, CLUSTER_SCRATCH_PER_ROW, type JoinTableLayout } from '../ops/join-table-layout.js';
import type { JoinLookup, JoinRowStoreDesc, JoinTableDesc } from '../types/tasks.js';
import { rowStoreBytes, rowStoreLayout, storedKeys } from '../ops/join-row-store.js';
import { denseKeySpan } from '../ops/dense-int-keys.js';
import type { Reservation } from '../memory/budget.js';
import type { JoinStagePlan } from './exec-join.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { orderedMapAhead, runAll } from './scheduler.js';
import { ExecutionError } from '../errors.js';

/** The right columns (counted twice while they are made contiguous) and the table stay within this share of the budget. */
const BUILD_SHARE = 0.25;
/** A key with more right rows than this goes to the partitioned join (a left row's output is bounded per slice). */
const MAX_FANOUT = 64;
/**
 * Rows of a left slice (fewer when the budget is small). The str and hashed int layouts probe
 * cluster by cluster of the table, and more probes per cluster share its cache lines and pages
 * (10M probes of a 1M-key table: 128k-row slices 2.4-2.65 s, 512k 1.97 s, 1M 1.93-2.28 s); the
 * direct layout gains too, from a quarter of the tasks (join-int-inner 10M x 1M, warm runs
 * interleaved on a noisy machine: 128k 1.28-1.65 s, 512k 0.83-1.34 s).
 */
const SLICE_ROWS = 512 * 1024;
/** Right rows per batch when a small right side goes to the partitioned join after all. */
const HANDOFF_ROWS = 64 * 1024;

/** The joins this path can run: no right rows are output on their own, no key scaled on the right. */
export function broadcastable(plan: JoinStagePlan): boolean {
  const how = plan.resolved.how;
  if (how !== 'inner' && how !== 'left' && how !== 'semi' && how !== 'anti') return false;
  return plan.using.length === 0 && plan.task.rightKeys.length > 0 && plan.task.scales.every((s) => s.type === null || s.right === 1);
}

/** The right side, read: a built table, or the rows for the partitioned join (routed columns only). */
export type RightSide =
  | { kind: 'table'; lookup: JoinLookup; columns: A.Data[]; inlined: Array<InlinedColumn | null>; rows: number; release(): Promise<void> }
  | { kind: 'partitioned'; batches: AsyncIterable<A.RecordBatch>; schema: A.Schema; release(): Promise<void> };

/** Reads the right input; builds the table when it fits (see the file comment). */
export async function readRight(ctx: RunContext, plan: JoinStagePlan, input: AsyncIterable<A.RecordBatch>, inputSchema: A.Schema, owned: boolean): Promise<RightSide> {
  const routedSchema = new A.Schema(plan.rightRouted.map((i) => inputSchema.fields[i]!));
  const limit = Math.floor(ctx.budget.limit * BUILD_SHARE);
  const held = ctx.budget.reserve('join.build');
  const keys = plan.task.rightKeys;
  const layout = joinTableLayout(plan.resolved.keys.map((k, i) => ({ left: k.left.type, right: k.right.type, scaled: plan.task.scales[i]!.type })));
  const tableFor = (rows: number, nulls: (k: number) => boolean): number =>
    joinTableBytes(rows, keys.map((p, k) => ({ type: plan.resolved.keys[k]!.right.type, hasNulls: nulls(p) })), layout);
  const inlineCandidates = plan.task.payload.filter((p) => inlinable(routedSchema.fields[p]!.type)).length;
  const it = input[Symbol.asyncIterator]();
  const chunks: A.RecordBatch[] = [];
  let rows = 0;
  let bytes = 0;
  let done = false;
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) {
        done = true;
        break;
      }
      ctx.checkAbort();
      if (r.value.numRows === 0) continue;
      const routed = selectColumns(r.value, plan.rightRouted);
      chunks.push(routed);
      rows += routed.numRows;
      bytes += batchCopyBytes(routed);
      if (owned) held.grow(batchBytes(routed));
      // Room for the references, their contiguous copy, the table and the inline records.
      if (2 * bytes + tableFor(rows, () => true) + inlineCandidates * INLINE_BYTES_PER_ROW * rows + LOAN_SLACK > limit) break;
    }
    if (!done) return handOff(chunks, it, routedSchema, plan.rightRouted, held);

    // Contiguous shared columns (a copy each, counted), then the references go. The copies and
    // the table are pooled buffers, given back when the join ends: fresh pages cost ~3 ms a MiB
    // here, and a 1M-row right side and its table are ~120 MiB every run.
    const copyRes = ctx.budget.reserve('join.build');
    const byColumn = routedSchema.fields.map((_, c) => chunks.map((b) => b.data.children[c]!));
    const copied = byColumn.filter((parts) => !(parts.length === 1 && isAllShared(parts[0]!) && parts[0]!.offset === 0));
    let copyBuffer: SharedArrayBuffer | null = null;
    let columns: A.Data[];
    try {
      if (copied.length > 0) {
        // `bytes` counts every chunk's buffers padded; the copies add a few words per column
        // buffer (not per chunk: a right side of many small batches is still one copy a column).
        const [copyLoan] = await ctx.loans('join.build', [bytes + 256 * copied.length + LOAN_SLACK], [0]);
        copyBuffer = copyLoan!.handOver(copyRes);
      }
      const arena = new SharedArena(1 << 16, copyBuffer, true);
      columns = routedSchema.fields.map((f, c) => contiguous(byColumn[c]!, f.type, arena.alloc));
      // Anything the loan could not hold came from fresh buffers: counted as well.
      copyRes.grow(arena.reserved);
    } catch (err) {
      copyRes.free();
      throw err;
    }
    const giveBack = (res: Reservation, buffer: SharedArrayBuffer | null): void => {
      if (buffer) ctx.pool.give(res, buffer);
      res.free();
    };
    chunks.length = 0;
    held.free();
    ctx.progress.add('partition', rows);

    // The payload stored by key (src/ops/join-row-store: an inner or left join on one int key
    // whose right values are unique and dense), filled by every thread at once: no table to
    // build. Else the table, and short strings of the payload as inline records: the probes
    // gather each output row's value from one 16 bytes at random, not from its offsets and
    // then its bytes.
    const inlineRes = ctx.budget.reserve('join.build');
    let store: RowStore | null;
    try {
      store = await rowStoreOf(ctx, plan, layout, columns, rows, inlineRes);
    } catch (err) {
      inlineRes.free();
      copyRes.free();
      throw err;
    }
    if (store !== null) {
      let storeBuffer: SharedArrayBuffer | null = store.buffer;
      return {
        kind: 'table',
        lookup: { kind: 'rowStore', store: store.desc },
        columns,
        inlined: columns.map(() => null),
        rows,
        release: async () => {
          giveBack(inlineRes, storeBuffer);
          storeBuffer = null;
          giveBack(copyRes, copyBuffer);
          copyBuffer = null;
        },
      };
    }
    const tableBytes = tableFor(rows, (p) => columns[p]!.nullCount > 0);
    const tableRes = ctx.budget.reserve('join.table');
    let tableBuffer: SharedArrayBuffer | null = null;
    let table: JoinTableDesc;
    try {
      const clustered = layout === 'generic' ? 0 : CLUSTER_SCRATCH_PER_ROW * rows;
      const [tableLoan, scratch] = await ctx.loans('join.build', [tableBytes + LOAN_SLACK, 8 * rows + 2 * keys.length * rows + clustered + LOAN_SLACK], [0]);
      try {
        const build = { kind: 'joinBuild', right: columns.map((c) => describeData(c)), rows, keys, scales: plan.task.scales, nullsEqual: plan.task.nullsEqual, layout } as const;
        const res = await ctx.clock.during('kernel', ctx.task({ ...build, table: tableLoan!.buffer, scratch: scratch!.buffer }));
        ctx.stats.overflowBytes += res.scratch.overflow;
        tableBuffer = tableLoan!.handOver(tableRes);
        table = res.value;
      } finally {
        tableLoan!.release();
        scratch!.release();
      }
    } catch (err) {
      inlineRes.free();
      tableRes.free();
      copyRes.free();
      throw err;
    }
    if (table.maxGroup > MAX_FANOUT) {
      inlineRes.free();
      giveBack(tableRes, tableBuffer);
      return handOff([], wholeAsBatches(routedSchema, columns, rows), routedSchema, null, copyRes);
    }
    let inline: InlineRecords;
    try {
      inline = await inlineRecordsOf(ctx, columns, rows, plan.task.payload, inlineRes);
    } catch (err) {
      inlineRes.free();
      giveBack(tableRes, tableBuffer);
      giveBack(copyRes, copyBuffer);
      throw err;
    }
    let inlineBuffer = inline.buffer;
    return {
      kind: 'table',
      lookup: { kind: 'table', table },
      columns,
      inlined: inline.columns,
      rows,
      release: async () => {
        giveBack(inlineRes, inlineBuffer);
        inlineBuffer = null;
        giveBack(tableRes, tableBuffer);
        tableBuffer = null;
        giveBack(copyRes, copyBuffer);
        copyBuffer = null;
      },
    };
  } catch (err) {
    held.free();
    await it.return?.(undefined);
    throw err;
  }
}

/** A right side's payload as rows indexed by key, and the buffer that holds them. */
interface RowStore {
  desc: JoinRowStoreDesc;
  buffer: SharedArrayBuffer;
}

/** Keys spanning more than this many times the right rows get no row store (its lines would be mostly empty). */
const ROW_STORE_SPAN_PER_ROW = 2;

/**
 * The payload as rows indexed by key (src/ops/join-row-store), in one loan handed over to
 * `res`, for an inner or left join on one int key whose right values are unique, NULL-free
 * when NULLs are equal, and span at most ROW_STORE_SPAN_PER_ROW times the rows; else null.
 * Every thread fills a range of the right rows at once (src/worker/join-row-store-task); a key
 * of two rows shows as fewer keys stored than rows, and then the join builds its table. Like
 * inline records it only speeds the probes up: when the budget cannot lend it, or a payload
 * column cannot be stored, the join runs without.
 */
async function rowStoreOf(ctx: RunContext, plan: JoinStagePlan, layout: JoinTableLayout, columns: A.Data[], rows: number, res: Reservation): Promise<RowStore | null> {
  const how = plan.resolved.how;
  if ((how !== 'inner' && how !== 'left') || layout !== 'int' || plan.task.payload.length === 0 || plan.task.rightKeys.length !== 1 || rows === 0) return null;
  const keyData = columns[plan.task.rightKeys[0]!]!;
  if (plan.task.nullsEqual && keyData.nullCount > 0) return null;
  const payload = plan.task.payload.map((p) => columns[p]!);
  const lines = rowStoreLayout(payload);
  if (lines === null) return null;
  const dense = denseKeySpan(toKeyColumn(keyData), rows, ROW_STORE_SPAN_PER_ROW * rows);
  if (dense === null) return null;
  const { min, span } = dense;
  let buffer: SharedArrayBuffer;
  try {
    const [loan] = await ctx.loans('join.build', [rowStoreBytes(lines, span) + LOAN_SLACK], [0]);
    buffer = loan!.handOver(res);
  } catch (err) {
    if (err instanceof ExecutionError && err.code === 'MEMORY_EXHAUSTED') return null;
    throw err;
  }
  const at = 4 * lines.words * span;
  const hit = new Uint8Array(buffer, at, span);
  hit.fill(0);
  const desc: JoinRowStoreDesc = {
    layout: lines,
    lines: bufRefOf(new Int32Array(buffer, 0, lines.words * span)),
    hit: bufRefOf(hit),
    lens: Array.from({ length: lines.strings }, (_, i) => bufRefOf(new Uint8Array(buffer, at + (i + 1) * span, span))),
    min,
    span,
  };
  const key = describeData(keyData);
  const described = payload.map((c) => describeData(c));
  const step = Math.ceil(rows / ctx.concurrency);
  const ranges = Array.from({ length: Math.ceil(rows / step) }, (_, i) => [i * step, Math.min(rows, (i + 1) * step)] as const);
  try {
    await ctx.clock.during('kernel', runAll(ranges.map(([from, to]) => () => ctx.task({ kind: 'joinRowStore', payload: described, key, store: desc, from, to })), ctx.concurrency));
  } catch (err) {
    ctx.pool.give(res, buffer);
    throw err;
  }
  if (storedKeys(hit, span) !== rows - keyData.nullCount) {
    ctx.pool.give(res, buffer); // a key of two rows: the table instead
    return null;
  }
  return { desc, buffer };
}

/** The inline records of a right side's short-string payload columns (null where none), and the buffer that holds them. */
interface InlineRecords {
  columns: Array<InlinedColumn | null>;
  buffer: SharedArrayBuffer | null;
}

/**
 * Inline records (src/columns/inline-words inlineRecords) of the payload columns of mostly
 * short strings, in one loan handed over to `res`. They only speed the probes up: when the
 * budget cannot lend them, the join runs without (none are made).
 */
async function inlineRecordsOf(ctx: RunContext, columns: A.Data[], rows: number, payload: number[], res: Reservation): Promise<InlineRecords> {
  const none: InlineRecords = { columns: columns.map(() => null), buffer: null };
  const wanted = payload.filter((p, i, all) => all.indexOf(p) === i && shortStrings(columns[p]!));
  if (wanted.length === 0 || rows === 0) return none;
  const perColumn = Math.ceil((INLINE_BYTES_PER_ROW * rows) / 8) * 8;
  let buffer: SharedArrayBuffer;
  try {
    const [loan] = await ctx.loans('join.build', [wanted.length * perColumn + LOAN_SLACK], [0]);
    buffer = loan!.handOver(res);
  } catch (err) {
    if (err instanceof ExecutionError && err.code === 'MEMORY_EXHAUSTED') return none;
    throw err;
  }
  const out = none.columns;
  wanted.forEach((p, k) => {
    const records = new Int32Array(buffer, k * perColumn, INLINE_RECORD_WORDS * rows);
    const lengths = new Uint8Array(buffer, k * perColumn + INLINE_RECORD_WORDS * 4 * rows, rows);
    const c = columns[p]!;
    inlineRecords(c.values as Uint8Array, offsetsOf(c), rows, records, lengths);
    out[p] = { records, lengths };
  });
  return { columns: out, buffer };
}

/** A right payload column's inline records and length bytes (src/columns/inline-words inlineRecords). */
interface InlinedColumn {
  records: Int32Array;
  lengths: Uint8Array;
}

/** Bytes a right row takes in an inlined column's records and lengths. */
const INLINE_BYTES_PER_ROW = INLINE_RECORD_WORDS * 4 + 1;

/** Payload types the probes may gather through inline records: utf8 and binary with int32 offsets. */
function inlinable(type: A.DataType): boolean {
  return type.typeId === A.Type.Utf8 || type.typeId === A.Type.Binary;
}

/** Values that mostly fit an inline record (a mean of at most 16 bytes: the longer ones are read from the column). */
function shortStrings(c: A.Data): boolean {
  if (!inlinable(c.type) || c.length === 0) return false;
  const offs = offsetsOf(c);
  return offs[c.length]! - offs[0]! <= 16 * c.length;
}

/** The rows read so far, then the rest of the input (its routed columns, unless `routed` is null: already routed). */
function handOff(chunks: A.RecordBatch[], rest: AsyncIterator<A.RecordBatch>, schema: A.Schema, routed: number[] | null, held: Reservation): RightSide {
  const batches = (async function* () {
    try {
      while (chunks.length > 0) yield chunks.shift()!;
      held.free();
      for (;;) {
        const r = await rest.next();
        if (r.done) return;
        yield routed ? selectColumns(r.value, routed) : r.value;
      }
    } finally {
      chunks.length = 0;
      held.free();
      await rest.return?.(undefined);
    }
  })();
  return {
    kind: 'partitioned',
    batches,
    schema,
    release: async () => {
      chunks.length = 0;
      held.free();
      await rest.return?.(undefined);
    },
  };
}

async function* wholeAsBatches(schema: A.Schema, columns: A.Data[], rows: number): AsyncGenerator<A.RecordBatch> {
  for (let start = 0; start < rows; start += HANDOFF_ROWS) {
    const len = Math.min(HANDOFF_ROWS, rows - start);
    yield batchFromColumns(schema, columns.map((c) => c.slice(start, len)), len);
  }
}

/** One shared, contiguous column of the chunks: the chunk itself when it is one already, else a copy from `alloc`. */
function contiguous(chunks: A.Data[], type: A.DataType, alloc: Allocator): A.Data {
  if (chunks.length === 0) return toSharedData(emptyData(type), alloc);
  if (chunks.length === 1) return isAllShared(chunks[0]!) && chunks[0]!.offset === 0 ? chunks[0]! : toSharedData(chunks[0]!, alloc);
  return concatData(chunks, alloc);
}

/**
 * The left input probed slice by slice against the table; output batches in left order.
 */
export async function* probeLeft(ctx: RunContext, plan: JoinStagePlan, right: Extract<RightSide, { kind: 'table' }>, left: AsyncIterable<A.RecordBatch>, collected = false): AsyncGenerator<A.RecordBatch> {
  const { resolved } = plan;
  const how = resolved.how as 'inner' | 'left' | 'semi' | 'anti';
  const schema = schemaToArrow(resolved.output);
  const leftOut: number[] = [];
  for (const a of plan.assemble) if (a.side === 'left' && !leftOut.includes(a.index)) leftOut.push(a.index);
  const payload = plan.task.payload.map((p) => describeData(right.columns[p]!));
  const inlined = plan.task.payload.map((p) => {
    const c = right.inlined[p];
    return c ? { records: bufRefOf(c.records), lengths: bufRefOf(c.lengths) } : null;
  });
  const rightRowBytes = right.rows > 0 ? plan.task.payload.reduce((t, p) => t + dataBytes(right.columns[p]!), 0) / right.rows : 0;
  const table = right.lookup.kind === 'table' ? right.lookup.table : null;
  const fan = how === 'semi' || how === 'anti' || table === null ? 1 : Math.max(1, table.maxGroup);
  const share = Math.floor(ctx.limits.taskBytes * (1 - BUILD_SHARE));
  // run, len and hashes, the rows picked per match, and the clustered keys of the str and hashed int layouts
  const clustered = table !== null && (table.layout === 'str' || (table.layout === 'int' && table.directSpan === 0));
  let scratchPerRow = 16 + 8 * fan + (clustered ? CLUSTER_SCRATCH_PER_ROW : 0);
  let resultPerRow = 0;
  const results = ctx.budget.reserve('join.results');
  const sliceRows = (inputPerRow: number): number => {
    const out = Math.max(resultPerRow, fan * (inputPerRow + rightRowBytes + 8));
    const fit = Math.floor((share - 3 * LOAN_SLACK) / (1.25 * (inputPerRow + scratchPerRow + out)));
    return Math.max(1, Math.min(SLICE_ROWS, fit));
  };
  // A left join whose right keys are unique outputs every left row once, in order: the tasks
  // keep the slices' own left columns (leftIdentity), so only the key columns are copied for
  // them (join-int-left: 8 of 37 bytes a row on the coordinator).
  const leftKeys = plan.resolved.keys.map((k) => k.left.index);
  const keysOnly = how === 'left' && fan === 1 ? [...new Set(leftKeys)] : null;
  const sentKeys = keysOnly ? leftKeys.map((c) => keysOnly.indexOf(c)) : leftKeys;
  let rowBase = 0;
  const sliced = async function* (): AsyncGenerator<A.RecordBatch> {
    for await (const batch of left) {
      const perRow = batch.numRows > 0 ? batchCopyBytes(batch) / batch.numRows : 0;
      for (let start = 0; start < batch.numRows; ) {
        const len = Math.min(sliceRows(perRow), batch.numRows - start);
        yield start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
        rowBase += len;
        start += len;
      }
    }
  };
  // A slice is copied while the tasks before it run (orderedMapAhead).
  const done = orderedMapAhead(
    sliced(),
    async (batch, lane) => {
      const n = Math.max(1, batch.numRows);
      const sent = keysOnly ? selectColumns(batch, keysOnly) : batch;
      const inBytes = batchCopyBytes(sent) + 64 * sent.numCols + LOAN_SLACK;
      const [inLoan, scratch] = await ctx.loans('join.probe', [inBytes, Math.ceil(scratchPerRow * 1.25 * n) + LOAN_SLACK]);
      try {
        const arena = new SharedArena(1 << 16, inLoan!.buffer, false);
        const described = describeBatch(sent, arena.alloc);
        const res = await lane(() => ctx.task({
          kind: 'joinProbe',
          batch: described,
          how,
          leftKeys: sentKeys,
          scales: plan.task.scales,
          nullsEqual: plan.task.nullsEqual,
          leftOut: keysOnly ? [] : leftOut,
          lookup: right.lookup,
          payload,
          inlined,
          sharedResults: collected,
          scratch: scratch!.buffer,
        }));
        if (keysOnly && !res.value.leftIdentity) throw new ExecutionError('INTERNAL', 'join: a left join of unique right keys gave a left row other than once; refusing to return a wrong result');
        scratchPerRow = Math.max(scratchPerRow, (res.scratch.used + res.scratch.overflow) / n);
        ctx.stats.overflowBytes += res.scratch.overflow;
        const bytes = res.value.columns.reduce((s, c) => s + descBytes(c), 0);
        resultPerRow = Math.max(resultPerRow, bytes / n);
        results.grow(bytes);
        if (collected) ctx.handsOutShared(bytes);
        return { batch, value: res.value, bytes };
      } finally {
        inLoan!.release();
        scratch!.release();
      }
    },
    ctx.concurrency,
    ctx.roomAhead,
  );
  ctx.progress.start('kernel');
  try {
    for await (const { batch, value, bytes } of ctx.clock.phaseOf('kernel', done)) {
      ctx.checkAbort();
      ctx.progress.add('partition', batch.numRows);
      ctx.progress.add('kernel', batch.numRows);
      const cols = value.columns.map(rebuildData);
      results.shrink(bytes);
      if (value.length === 0) continue;
      const leftCol = (i: number): A.Data => (value.leftIdentity ? batch.data.children[i]! : cols[leftOut.indexOf(i)]!);
      const base = value.leftIdentity ? 0 : leftOut.length;
      const columns = plan.assemble.map((a) => (a.side === 'left' ? leftCol(a.index) : cols[base + a.out]!));
      yield batchFromColumns(schema, columns, value.length);
    }
  } finally {
    results.free();
  }
}
