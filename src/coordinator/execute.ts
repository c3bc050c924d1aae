/** Runs a stage tree as a stream of record batches. */
import type * as A from 'apache-arrow';
import { batchBytes, batchFromColumns } from '../columns/shared.js';
import { execAsof } from './exec-asof.js';
import { execGroupBy, execWindowGroupBy } from './exec-groupby.js';
import { execJoin } from './exec-join.js';
import { execSort } from './exec-sort.js';
import { execRowLocal } from './exec-rowlocal.js';
import { execWindow } from './exec-window.js';
import type { Stage } from './planner.js';
import type { BatchSlicing } from '../io/ipc.js';
import type { RunContext } from './run-context.js';
import type { ProgressTotals } from './run-progress.js';

/**
 * About how many bytes a stage's rows take in memory, from its sources' sizes (null: not known
 * before reading). Row-local chains are taken as their input's size.
 */
export async function stageBytes(stage: Stage): Promise<number | null> {
  switch (stage.kind) {
    case 'scan':
      return (await stage.source.size()).bytes;
    case 'rowlocal':
    case 'limit':
    case 'window':
    case 'sort':
    case 'groupBy':
    case 'project':
      // A group-by's output is at most its input: an upper bound is what partitioning needs.
      return stageBytes(stage.input);
    case 'asof':
      return stageBytes(stage.left);
    case 'join':
      return sumOrNull(await Promise.all([stageBytes(stage.left), stageBytes(stage.right)]));
    case 'union':
      return sumOrNull(await Promise.all(stage.inputs.map(stageBytes)));
  }
}

/**
 * How many rows a stage yields, when its sources' metadata tells before reading (null: not
 * known). Window, sort, a left asofJoin, projections and row-local steps without a filter or
 * explode keep their input's rows; a limit keeps at most n; group-bys and joins are not known.
 */
export async function stageRows(stage: Stage): Promise<number | null> {
  switch (stage.kind) {
    case 'scan':
      return (await stage.source.size({ rows: true })).rows;
    case 'rowlocal':
      return stage.countChanges ? null : stageRows(stage.input);
    case 'limit': {
      const n = await stageRows(stage.input);
      return n === null ? null : Math.min(n, stage.n);
    }
    case 'window':
    case 'sort':
    case 'project':
      return stageRows(stage.input);
    case 'asof':
      return stage.plan.resolved.how === 'left' ? stageRows(stage.left) : null;
    case 'groupBy':
    case 'join':
      return null;
    case 'union':
      return sumOrNull(await Promise.all(stage.inputs.map(stageRows)));
  }
}

/**
 * The progress totals of a run of `stage` (see run-progress.ts): rows read by all scans; rows
 * routed by all blocking stages (partition); rows their kernels compute (kernel: a window's or
 * group-by's input, an asofJoin's left rows, a join's left rows plus the right rows of a
 * right/full join); rows sorted; rows the run yields (write).
 */
export async function progressTotals(stage: Stage): Promise<ProgressTotals> {
  const totals: ProgressTotals = {
    read: { rows: 0, stages: 0 },
    partition: { rows: 0, stages: 0 },
    sort: { rows: 0, stages: 0 },
    kernel: { rows: 0, stages: 0 },
    write: { rows: await stageRows(stage), stages: 1 },
  };
  const count = (phase: keyof ProgressTotals, rows: number | null): void => {
    const t = totals[phase];
    t.stages++;
    t.rows = t.rows === null || rows === null ? null : t.rows + rows;
  };
  const walk = async (s: Stage): Promise<void> => {
    switch (s.kind) {
      case 'scan':
        return count('read', await stageRows(s));
      case 'rowlocal':
      case 'limit':
      case 'project':
        return walk(s.input);
      case 'union':
        for (const i of s.inputs) await walk(i);
        return;
      case 'window':
      case 'groupBy': {
        // A group-by fused with its window input routes the window's input once.
        const input = s.kind === 'groupBy' && s.fused && s.input.kind === 'window' ? s.input.input : s.input;
        const rows = await stageRows(input);
        count('partition', rows);
        count('kernel', rows);
        return walk(input);
      }
      case 'sort': {
        const rows = await stageRows(s.input);
        count('partition', rows);
        count('sort', rows);
        return walk(s.input);
      }
      case 'asof':
      case 'join': {
        const [left, right] = await Promise.all([stageRows(s.left), stageRows(s.right)]);
        count('partition', left === null || right === null ? null : left + right);
        const withRight = s.kind === 'join' && (s.plan.resolved.how === 'right' || s.plan.resolved.how === 'full');
        count('kernel', withRight ? (left === null || right === null ? null : left + right) : left);
        await walk(s.left);
        return walk(s.right);
      }
    }
  };
  await walk(stage);
  return totals;
}

function sumOrNull(sizes: Array<number | null>): number | null {
  return sizes.some((s) => s === null) ? null : sizes.reduce<number>((t, s) => t + s!, 0);
}

/**
 * The stage's batches once more, the same ones in the same order, when the stage can give
 * them again more cheaply than a blocking operator could keep them (a scan of Arrow IPC files,
 * maybe with columns selected); null otherwise. The second read counts no input rows.
 */
export function rereadOf(ctx: RunContext, stage: Stage): (() => AsyncIterable<A.RecordBatch>) | null {
  switch (stage.kind) {
    case 'scan':
      return stage.source.reread ? () => conform(stage.schema, readSource(ctx, stage, true)) : null;
    case 'project': {
      const input = rereadOf(ctx, stage.input);
      return input ? () => conform(stage.schema, project(input(), stage.schema, stage.columns)) : null;
    }
    default:
      return null;
  }
}

/**
 * The stage's batches once more, free and before the run reads them (the caller's tables in
 * memory), or null: an operator's look at its input before it runs (a sort's key sample).
 */
export function previewOf(ctx: RunContext, stage: Stage): (() => AsyncIterable<A.RecordBatch>) | null {
  if (stage.kind !== 'scan' || !stage.source.replayable) return null;
  const source = stage.source;
  return () => source.batches(ctx.signal);
}

/** Whether a stage's batches were allocated by Sluice (and may be counted and spilled). */
export function ownsBatches(stage: Stage): boolean {
  switch (stage.kind) {
    case 'scan':
      return stage.source.owned;
    case 'limit':
    case 'project':
      return ownsBatches(stage.input);
    case 'union':
      return stage.inputs.every(ownsBatches);
    default:
      return true;
  }
}

/**
 * The stage's batches, each carrying exactly the stage's planned schema. `collected`: the
 * caller keeps every batch (execute(), collect()): a window or ASOF join whose rows are the
 * result writes its fixed-width outputs straight into the result's columns (see OutputRanges),
 * and a broadcast join's probe tasks, a sort's, a group-by's assembly and row-local tasks build
 * theirs in shared memory (src/columns/arena TransferArena `shared`): the coordinator's collector
 * does not count them as it counts transferred buffers.
 */
export function runStage(ctx: RunContext, stage: Stage, collected = false): AsyncIterable<A.RecordBatch> {
  return conform(stage.schema, runStageRaw(ctx, stage, collected));
}

function runStageRaw(ctx: RunContext, stage: Stage, collected: boolean): AsyncIterable<A.RecordBatch> {
  switch (stage.kind) {
    case 'scan':
      return readSource(ctx, stage);
    case 'rowlocal':
      return execRowLocal(ctx, stage.ops, stage.schema, runStage(ctx, stage.input), collected);
    case 'limit':
      return limit(runStage(ctx, stage.input), stage.n);
    case 'window':
      return execWindow(ctx, stage.plan, runStage(ctx, stage.input), stage.input, ownsBatches(stage.input), rereadOf(ctx, stage.input), collected);
    case 'asof':
      return execAsof(ctx, stage.plan, stage.left, stage.right, collected);
    case 'sort':
      return execSort(ctx, stage.plan, runStage(ctx, stage.input), stage.input.schema, ownsBatches(stage.input), previewOf(ctx, stage.input), collected);
    case 'groupBy':
      if (stage.fused && stage.input.kind === 'window') {
        const w = stage.input;
        return execWindowGroupBy(ctx, stage.fused, stage.plan, runStage(ctx, w.input), w.input.schema, ownsBatches(w.input));
      }
      return execGroupBy(ctx, stage.plan, runStage(ctx, stage.input), stage.input, ownsBatches(stage.input), previewOf(ctx, stage.input), collected);
    case 'join':
      return execJoin(ctx, stage.plan, stage.left, stage.right, collected);
    case 'project':
      // A projection keeps every row and shares its input's columns: still the result when it
      // keeps all of them (a dropped output column would be written for nothing, uncounted).
      return project(runStage(ctx, stage.input, collected && new Set(stage.columns).size === stage.input.schema.fields.length), stage.schema, stage.columns);
    case 'union':
      return union(ctx, stage.inputs);
  }
}

/** The same batches with only some columns, under new names (no copy). */
async function* project(input: AsyncIterable<A.RecordBatch>, schema: A.Schema, columns: number[]): AsyncGenerator<A.RecordBatch> {
  for await (const batch of input) yield batchFromColumns(schema, columns.map((i) => batch.data.children[i]!), batch.numRows);
}

/** Every input's batches, one input after the other. */
async function* union(ctx: RunContext, inputs: Stage[]): AsyncGenerator<A.RecordBatch> {
  for (const s of inputs) yield* runStage(ctx, s);
}

async function* conform(schema: A.Schema, input: AsyncIterable<A.RecordBatch>): AsyncGenerator<A.RecordBatch> {
  for await (const batch of input) {
    yield batch.schema === schema ? batch : batchFromColumns(schema, batch.data.children, batch.numRows);
  }
}

/**
 * A source's batches, none bigger than `limits.readBytes` where the format can cut them. A batch
 * Sluice read itself is counted as `read` until the consumer asks for the next one; one the
 * reader had to decode whole (compressed Arrow IPC, nested columns) is counted as
 * `read.whole-batch` while its slices are handed on (what could not be counted is reported as
 * overflow).
 */
async function* readSource(ctx: RunContext, stage: Extract<Stage, { kind: 'scan' }>, again = false): AsyncGenerator<A.RecordBatch> {
  const source = stage.source;
  const name = again ? 'reread' : 'read';
  const held = ctx.budget.reserve(name);
  const whole = ctx.budget.reserve(`${name}.whole-batch`);
  let inWhole = false;
  const slicing: BatchSlicing = {
    maxBytes: ctx.limits.readBytes,
    whole: (bytes) => {
      whole.free();
      inWhole = bytes > 0;
      if (inWhole && !whole.tryGrow(bytes)) ctx.stats.overflowBytes += bytes;
    },
  };
  const it = (again ? source.reread!(ctx.signal, slicing) : source.batches(ctx.signal, slicing))[Symbol.asyncIterator]();
  if (!again) ctx.progress.start('read');
  // The next batch is about as big as the last: wait for room for it before reading, so a
  // full budget (tasks in flight) slows the reader down instead of being overrun.
  let expected = 0;
  try {
    for (;;) {
      ctx.checkAbort();
      if (stage.source.owned && expected > 0) await ctx.roomFor(expected);
      const r = await ctx.clock.during('read', it.next());
      if (r.done) return;
      if (!again) {
        ctx.stats.rowsIn += r.value.numRows;
        ctx.progress.add('read', r.value.numRows);
      }
      // Slices of a batch held whole are counted in it.
      if (stage.source.owned && !inWhole) {
        const bytes = batchBytes(r.value);
        expected = bytes;
        if (!held.tryGrow(bytes)) ctx.stats.overflowBytes += bytes;
      }
      yield r.value;
      held.free();
    }
  } finally {
    held.free();
    whole.free();
    await it.return?.(undefined);
  }
}

async function* limit(input: AsyncIterable<A.RecordBatch>, n: number): AsyncGenerator<A.RecordBatch> {
  if (n <= 0) return;
  let left = n;
  for await (const batch of input) {
    if (batch.numRows <= left) {
      left -= batch.numRows;
      yield batch;
    } else {
      yield batch.slice(0, left);
      left = 0;
    }
    if (left === 0) return;
  }
}
