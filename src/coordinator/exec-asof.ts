/**
 * Plans and executes an ASOF join stage.
 *
 * Planning: options resolved against both schemas (src/ops/asof-spec), the condition bound
 * against the output schema, and the columns each side must route to the workers: its `by`
 * keys, its `on` key, and the columns the condition reads.
 * Execution: both sides hash-partitioned on the `by` keys with the same seeded hash (matching
 * groups meet in one task), one task per partition writes each left row's matched right row id
 * into a shared array, then the left batches are replayed in order and the right columns are
 * gathered by those ids (one gather per column and batch).
 * Without `by` keys all rows share one group: both sides are range-partitioned on the key
 * instead (src/coordinator/asof-range.ts), unless a condition can reject rows: then one task.
 */
import * as A from 'apache-arrow';
import { localAlloc, sharedAlloc } from '../columns/arena.js';
import { schemaToArrow } from '../columns/arrow-types.js';
import { concatData, gatherData } from '../columns/gather.js';
import { batchFromColumns, bufRefOf } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { bindPredicate, type BoundExpr } from '../expr/bind.js';
import { toPredicateNode, type Expr } from '../expr/builders.js';
import { resolveAsof, type AsofOptions, type ResolvedAsof } from '../ops/asof-spec.js';
import type { FieldDesc, SchemaDesc } from '../types/column.js';
import type { AsofTask, ChunkDesc } from '../types/tasks.js';
import { routeByRange } from './asof-range.js';
import type { AsofTaskSpec } from '../worker/asof-task.js';
import { ownsBatches, runStage } from './execute.js';
import { ingest } from './ingest.js';
import type { Stage } from './planner.js';
import type { RunContext } from './run-context.js';
import { runAll } from './scheduler.js';

const MAX_RIGHT_ROWS = 0x7fffffff;

export interface AsofStagePlan {
  resolved: ResolvedAsof;
  /** hash: on the by keys; range: on the join key (no by keys); single: one task. */
  mode: 'hash' | 'range' | 'single';
  outputSchema: FieldDesc[];
  leftRouted: number[];
  rightRouted: number[];
  task: AsofTaskSpec;
  explain(indent: string, partitions: number): string[];
}

export function planAsof(options: unknown, left: SchemaDesc, right: SchemaDesc): AsofStagePlan {
  const resolved = resolveAsof(options as AsofOptions, left, right);
  const outputSchema = resolved.output;
  const leftRouted: number[] = [];
  const rightRouted: number[] = [];
  const route = (side: 'left' | 'right', index: number): number => {
    const list = side === 'left' ? leftRouted : rightRouted;
    let p = list.indexOf(index);
    if (p < 0) p = list.push(index) - 1;
    return p;
  };
  const leftBy = resolved.by.map((b) => route('left', b.left.index));
  const rightBy = resolved.by.map((b) => route('right', b.right.index));
  const leftOn = route('left', resolved.on.left.index);
  const rightOn = route('right', resolved.on.right.index);

  let condition: BoundExpr | null = null;
  const conditionColumns: AsofTaskSpec['conditionColumns'] = [];
  if (resolved.condition !== undefined && resolved.condition !== null) {
    const full = bindPredicate(toPredicateNode(resolved.condition as Expr), outputSchema);
    // Re-bind against only the columns the condition reads, in pair order.
    const used = new Set<number>();
    collectColumns(full, used);
    const remap = new Map<number, number>();
    for (const outIndex of [...used].sort((a, b) => a - b)) {
      const src = resolved.outputSources[outIndex]!;
      remap.set(outIndex, conditionColumns.length);
      conditionColumns.push({ side: src.side, pos: route(src.side, src.index) });
    }
    condition = remapColumns(full, remap);
  }

  const task: AsofTaskSpec = {
    leftBy,
    rightBy,
    leftOn,
    rightOn,
    key: resolved.key,
    direction: resolved.direction,
    tolerance: resolved.tolerance,
    allowExactMatches: resolved.allowExactMatches,
    nullsEqual: resolved.nullsEqual,
    condition,
    conditionColumns,
  };
  const mode = resolved.by.length > 0 ? 'hash' : condition ? 'single' : 'range';
  return {
    resolved,
    mode,
    outputSchema,
    leftRouted,
    rightRouted,
    task,
    explain(indent, partitions) {
      const next = indent + '  ';
      const byText = resolved.by.map((b) => (b.left.name === b.right.name ? b.left.name : `${b.left.name} = ${b.right.name}`)).join(', ');
      const partitioning =
        mode === 'hash'
          ? `hash(${byText}) on both sides into ${partitions} partitions, same seed`
          : mode === 'range'
            ? `no by keys: both sides range-partitioned on ${resolved.on.left.name} into up to ${partitions} ranges (left-key quantiles); each range also gets the nearest right rows below and above it`
            : 'no by keys and a condition that can reject rows: one partition, a single task (a boundary row from another range could be rejected)';
      return [
        `${indent}AsofJoin ${resolved.how} ${resolved.direction} on ${resolved.on.left.name} ~ ${resolved.on.right.name}` +
          `${resolved.toleranceText ? `, tolerance ${resolved.toleranceText}` : ''}${resolved.allowExactMatches ? '' : ', exact matches excluded'}`,
        `${next}partitioning: ${partitioning}`,
        `${next}sort per partition: (by group, ${resolved.on.left.name}, row id) on each side, LSD radix argsort, once`,
        `${next}key comparison: ${resolved.key.cls}${resolved.key.unit ? ` in ${resolved.key.unit}` : ''}, exact gaps`,
        `${next}match: merge cursors per group${condition ? `; condition ${condition.name} checked in vectorized rounds (walks on to the next eligible row)` : ', O(n + m)'}`,
        `${next}output: left order; right columns gathered by matched row id${resolved.how === 'inner' ? '; unmatched left rows dropped' : ''}`,
      ];
    },
  };
}

function collectColumns(e: BoundExpr, out: Set<number>): void {
  if (e.kind === 'col') out.add(e.index);
  for (const v of Object.values(e)) {
    if (v && typeof v === 'object' && 'kind' in (v as object) && 'type' in (v as object)) collectColumns(v as BoundExpr, out);
    if (Array.isArray(v)) for (const x of v) if (x && typeof x === 'object' && 'kind' in x && 'type' in x) collectColumns(x as BoundExpr, out);
  }
}

function remapColumns(e: BoundExpr, remap: Map<number, number>): BoundExpr {
  if (e.kind === 'col') return { ...e, index: remap.get(e.index)! };
  const copy: Record<string, unknown> = { ...e };
  for (const [k, v] of Object.entries(e)) {
    if (v && typeof v === 'object' && 'kind' in (v as object) && 'type' in (v as object)) copy[k] = remapColumns(v as BoundExpr, remap);
    else if (Array.isArray(v)) copy[k] = v.map((x) => (x && typeof x === 'object' && 'kind' in x && 'type' in x ? remapColumns(x as BoundExpr, remap) : x));
  }
  return copy as unknown as BoundExpr;
}

export async function* execAsof(ctx: RunContext, plan: AsofStagePlan, leftStage: Stage, rightStage: Stage): AsyncGenerator<A.RecordBatch> {
  const { resolved } = plan;
  const partitions = plan.mode === 'hash' ? ctx.config.partitions : 1;
  const hashKeys = resolved.by.map((_, i) => i); // by keys are routed first on both sides
  const left = await ingest(ctx, runStage(ctx, leftStage), leftStage.schema, {
    name: 'asof-left',
    routed: plan.leftRouted,
    hashKeys,
    partitions,
    owned: ownsBatches(leftStage),
  });
  let right: Awaited<ReturnType<typeof ingest>> | null = null;
  const matchesReservation = ctx.budget.reserve('asof.matches');
  try {
    right = await ingest(ctx, runStage(ctx, rightStage), rightStage.schema, {
      name: 'asof-right',
      routed: plan.rightRouted,
      hashKeys,
      partitions,
      owned: ownsBatches(rightStage),
    });
    if (right.rows > MAX_RIGHT_ROWS) {
      throw new ExecutionError('TOO_MANY_ROWS', `asofJoin: the right input has ${right.rows} rows; one join can address at most ${MAX_RIGHT_ROWS}`);
    }
    // Without by keys: from one partition to key ranges, so every thread gets work.
    let leftEx = left.exchange;
    let rightEx = right.exchange;
    let extras: (p: number) => ChunkDesc[] = () => [];
    if (plan.mode === 'range') {
      const ranged = await routeByRange(ctx, plan, left, right);
      if (ranged) {
        leftEx = ranged.left;
        rightEx = ranged.right;
        extras = (p) => ranged.extras(p);
        left.exchange = leftEx;
        right.exchange = rightEx;
      }
    }
    const matches = sharedAlloc(Int32Array, left.rows).fill(-1);
    matchesReservation.forceGrow(matches.byteLength);
    const matchesDesc = bufRefOf(matches);
    const parts = leftEx.nonEmpty().filter((p) => rightEx.rowsOf(p) + extras(p).length > 0);
    const t0 = performance.now();
    await runAll(
      parts.map((p) => async () => {
        const rightInput = rightEx.inputFor(p);
        const extra = extras(p);
        const task: AsofTask = {
          kind: 'asof',
          left: leftEx.inputFor(p),
          right: extra.length > 0 ? { ...rightInput, chunks: [...rightInput.chunks, ...extra] } : rightInput,
          spec: plan.task,
          matches: matchesDesc,
        };
        const res = await ctx.run<{ rows: number; rightRows: number }>(task);
        if (res.rows !== leftEx.rowsOf(p) || res.rightRows !== rightEx.rowsOf(p) + extra.length) {
          throw new ExecutionError('INTERNAL', `asofJoin: partition ${p} lost rows on its way to the worker; refusing to return a partial result`);
        }
        leftEx.drop(p);
        rightEx.drop(p);
      }),
      ctx.concurrency,
      (done) => ctx.progress('kernel', done, parts.length),
    );
    ctx.addPhase('kernel', performance.now() - t0);
    leftEx.release();
    rightEx.release();

    // Right columns as one column each, so a global right row id addresses them directly.
    const rightBatches = await right.store.all();
    const rightSchema = rightStage.schema;
    const rightColumns = new Map<number, A.Data>();
    const schema = schemaToArrow(plan.outputSchema);
    for (const src of resolved.outputSources) {
      if (src.side !== 'right' || rightColumns.has(src.index)) continue;
      const chunks = rightBatches.map((b) => b.data.children[src.index]!);
      rightColumns.set(
        src.index,
        chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? emptyColumn(rightSchema.fields[src.index]!) : concatData(chunks, localAlloc as never),
      );
    }
    for await (const { batch, rowBase } of left.store.replay()) {
      ctx.checkAbort();
      const n = batch.numRows;
      let idx = matches.subarray(rowBase, rowBase + n);
      let leftIdx: Int32Array | null = null;
      if (resolved.how === 'inner') {
        let kept = 0;
        for (let i = 0; i < n; i++) if (idx[i]! >= 0) kept++;
        leftIdx = new Int32Array(kept);
        const r = new Int32Array(kept);
        for (let i = 0, k = 0; i < n; i++) if (idx[i]! >= 0) { leftIdx[k] = i; r[k++] = idx[i]!; }
        idx = r;
      }
      const rows = leftIdx ? leftIdx.length : n;
      if (rows === 0 && resolved.how === 'inner') continue;
      const columns = resolved.outputSources.map((src) =>
        src.side === 'left'
          ? leftIdx ? gatherData(batch.data.children[src.index]!, leftIdx, rows, localAlloc as never) : batch.data.children[src.index]!
          : gatherData(rightColumns.get(src.index)!, idx, rows, localAlloc as never),
      );
      yield batchFromColumns(schema, columns, rows);
    }
  } finally {
    left.exchange.release();
    left.store.release();
    right?.exchange.release();
    right?.store.release();
    matchesReservation.free();
  }
}

function emptyColumn(field: A.Field): A.Data {
  return A.vectorFromArray([], field.type).data[0]! as A.Data;
}

