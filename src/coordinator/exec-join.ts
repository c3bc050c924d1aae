/**
 * Plans and executes a hash equi-join (API.md "Relational verbs") on the shared blocking path:
 *
 *   both sides hash-partitioned on the keys with the same seed (the left routes its keys only
 *   and is retained for the replay; the right routes its keys and the columns the output takes
 *   from it, so it is never held whole) ─► one join task per partition (./worker/join-task:
 *   table on the smaller side; a partition too big for one task is split again on both sides by
 *   a re-mixed hash of the keys) ─► output rows keyed by left row id (a left row's matches in
 *   right input order) and, for right/full, unmatched right rows keyed after the last left row,
 *   into a sparse output exchange ─► the left input replayed in order, each left row's output
 *   rows gathered from it, then the unmatched right rows in right input order.
 *
 * Key pairs whose units differ (date32/date64, timestamps or durations of different units) are
 * compared after scaling in the task, so they are not hashed for partitioning (their raw
 * hashes differ): the other keys are; with no other key there is one partition.
 */
import { emptyData } from '../io/arrow-input.js';
import * as A from 'apache-arrow';
import { sharedAlloc } from '../columns/arena.js';
import { schemaToArrow, typeToArrow } from '../columns/arrow-types.js';
import { gatherData } from '../columns/gather.js';
import { batchFromColumns } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import { cast } from '../expr/evaluate-cast.js';
import { joinKeysText, resolveJoin, type JoinOptions, type ResolvedJoin } from '../ops/join-spec.js';
import type { FieldDesc, SchemaDesc, TypeDesc } from '../types/column.js';
import type { JoinTaskSpec } from '../types/tasks.js';
import { outputRowBytes } from './column-widths.js';
import { ownsBatches, runStage } from './execute.js';
import { broadcastable, probeLeft, readRight } from './exec-join-broadcast.js';
import { ingest } from './ingest.js';
import { loadBytesOf, OutputRanges, replayWithSparseOutputs, runKernels, type KernelOperator } from './partitioned.js';
import type { Stage } from './planner.js';
import type { RunContext } from './run-context.js';

const MAX_IDS = 0xffffffff;

export interface JoinStagePlan {
  resolved: ResolvedJoin;
  leftRouted: number[];
  rightRouted: number[];
  /** Positions among each side's routed columns of the keys that are hashed for partitioning. */
  leftHash: number[];
  rightHash: number[];
  task: Omit<JoinTaskSpec, 'rightBase'>;
  /** The task's output columns (the right payload). */
  outFields: FieldDesc[];
  /** For each output column: a left input column, or a payload column. */
  assemble: Array<{ side: 'left'; index: number } | { side: 'right'; out: number }>;
  /** right/full: output column, payload column of the right key, the shared column's type. */
  using: Array<{ out: number; payload: number; type: TypeDesc }>;
  explain(indent: string, partitions: number): string[];
}

export function planJoin(options: JoinOptions, left: SchemaDesc, right: SchemaDesc): JoinStagePlan {
  const resolved = resolveJoin(options, left, right);
  const leftRouted: number[] = [];
  const rightRouted: number[] = [];
  const route = (list: number[], index: number): number => {
    let p = list.indexOf(index);
    if (p < 0) p = list.push(index) - 1;
    return p;
  };
  const leftKeys = resolved.keys.map((k) => route(leftRouted, k.left.index));
  const rightKeys = resolved.keys.map((k) => route(rightRouted, k.right.index));
  const hashed = resolved.keys.map((k) => k.scale.type === null);
  const leftHash = leftKeys.filter((_, i) => hashed[i]);
  const rightHash = rightKeys.filter((_, i) => hashed[i]);

  const payload: number[] = [];
  const outFields: FieldDesc[] = [];
  const addPayload = (index: number, field: FieldDesc): number => {
    payload.push(route(rightRouted, index));
    outFields.push({ ...field, nullable: true });
    return outFields.length - 1;
  };
  const assemble: JoinStagePlan['assemble'] = resolved.sources.map((src, i) => (src.side === 'left' ? { side: 'left', index: src.index } : { side: 'right', out: addPayload(src.index, resolved.output[i]!) }));
  const using = resolved.usingColumns.map((u) => ({ out: u.out, payload: addPayload(u.right, { ...right[u.right]!, name: `__using_${u.out}` }), type: u.type }));
  const task: JoinStagePlan['task'] = {
    how: resolved.how,
    leftKeys,
    rightKeys,
    scales: resolved.keys.map((k) => k.scale),
    nullsEqual: resolved.nullsEqual,
    payload,
  };
  const plan: JoinStagePlan = {
    resolved,
    leftRouted,
    rightRouted,
    leftHash,
    rightHash,
    task,
    outFields,
    assemble,
    using,
    explain(indent, partitions) {
      const next = indent + '  ';
      const scaled = resolved.keys.filter((k) => k.scale.type !== null);
      const hashedText = resolved.keys.filter((k) => k.scale.type === null);
      const partitioning =
        hashedText.length > 0
          ? `hash(${joinKeysText(hashedText)}) on both sides into ${partitions} partitions, same seed; an oversized partition split again on both sides by a re-mixed hash`
          : 'one partition (every key pair compares in scaled units, whose raw hashes differ)';
      const broadcast = broadcastable(plan)
          ? [`${next}small right side (its columns and table within a quarter of the budget, at most 64 rows per key): broadcast, one hash table built once and the left input probed slice by slice in order, no partitioning${resolved.how === 'inner' || resolved.how === 'left' ? ' (one int key unique and dense on the right: no table, its columns stored row by row at key - min by every thread at once, one read a matched row)' : ''}; otherwise:`]
          : [];
      return [
        `${indent}HashJoin ${resolved.how} on ${joinKeysText(resolved.keys)}${resolved.nullsEqual ? ', NULL keys equal' : ''}`,
        ...broadcast,
        `${next}partitioning: ${partitioning}`,
        ...(scaled.length > 0 ? [`${next}keys compared in common units: ${scaled.map((k) => `${k.left.name} = ${k.right.name}`).join(', ')} (the coarser side scaled in the task)`] : []),
        `${next}per partition: hash table on the smaller side (open addressing; NaN = NaN, -0 = 0; NULL keys ${resolved.nullsEqual ? 'match each other' : 'match nothing'}), right rows grouped by one stable counting scatter`,
        `${next}output: ${
          resolved.how === 'semi' || resolved.how === 'anti'
            ? `each ${resolved.how === 'semi' ? 'matching' : 'non-matching'} left row once, left columns only`
            : 'rows keyed by (left row id, right input order), left columns gathered from the replayed left input'
        }${resolved.how === 'right' || resolved.how === 'full' ? '; then unmatched right rows in right input order' : ''}`,
      ];
    },
  };
  return plan;
}

export async function* execJoin(ctx: RunContext, plan: JoinStagePlan, leftStage: Stage, rightStage: Stage, collected = false): AsyncGenerator<A.RecordBatch> {
  if (!broadcastable(plan)) {
    yield* partitionedJoin(ctx, plan, leftStage, { batches: runStage(ctx, rightStage), schema: rightStage.schema, routed: plan.rightRouted });
    return;
  }
  const right = await readRight(ctx, plan, runStage(ctx, rightStage), rightStage.schema, ownsBatches(rightStage));
  try {
    if (right.kind === 'table') yield* probeLeft(ctx, plan, right, runStage(ctx, leftStage), collected);
    else yield* partitionedJoin(ctx, plan, leftStage, { batches: right.batches, schema: right.schema, routed: plan.rightRouted.map((_, i) => i) });
  } finally {
    await right.release();
  }
}

/** The right input of the partitioned join: batches of `schema`, whose columns `routed` are routed. */
interface RightInput {
  batches: AsyncIterable<A.RecordBatch>;
  schema: A.Schema;
  routed: number[];
}

async function* partitionedJoin(ctx: RunContext, plan: JoinStagePlan, leftStage: Stage, rightInput: RightInput): AsyncGenerator<A.RecordBatch> {
  const { resolved } = plan;
  const hashed = plan.leftHash.length > 0;
  const partitions = hashed ? ctx.config.partitions : 1;
  const left = await ingest(ctx, runStage(ctx, leftStage), leftStage.schema, {
    name: 'join-left',
    spillTail: true,
    routed: plan.leftRouted,
    hashKeys: plan.leftHash,
    partitions,
    owned: ownsBatches(leftStage),
    retain: true,
  });
  let right: Awaited<ReturnType<typeof ingest>> | null = null;
  let out: OutputRanges | null = null;
  try {
    right = await ingest(ctx, rightInput.batches, rightInput.schema, {
      name: 'join-right',
      spillTail: true,
      routed: rightInput.routed,
      hashKeys: plan.rightHash,
      partitions,
      owned: false, // not retained: only the routed copies are kept
      retain: false,
    });
    const how = resolved.how;
    const withRight = how === 'right' || how === 'full';
    const ids = left.rows + (withRight ? right.rows : 0);
    if (ids > MAX_IDS) throw new ExecutionError('TOO_MANY_ROWS', `join: ${left.rows} left and ${right.rows} right rows exceed the ${MAX_IDS} rows one join can number`);
    const spec: JoinTaskSpec = { ...plan.task, rightBase: left.rows };
    out = new OutputRanges(ctx, 'join', plan.outFields, Math.max(1, ids), true);
    const lx = left.exchange;
    const rx = right.exchange;
    const outRowBytes = outputRowBytes(plan.outFields);
    const op: KernelOperator = {
      name: 'join',
      splitKeys: hashed ? [plan.leftHash, plan.rightHash] : null,
      measured: withRight ? [0, 1] : [0], // left rows, and right rows when unmatched ones are output too
      job: ({ sides: [l, r], p }) => {
        const nL = l!.rowsOf(p);
        const nR = r!.rowsOf(p);
        if (nL === 0 && (!withRight || nR === 0)) return null;
        const inputBytes = loadBytesOf(l!, p) + loadBytesOf(r!, p);
        // Output rows: about one per left row (and per unmatched right row); more is overflow.
        const estimate = nL + (withRight ? nR : 0);
        return {
          rows: nL + nR,
          scratchBytes: inputBytes + (nL + nR) * 48 + estimate * (12 + outRowBytes),
          outputBytes: estimate * outRowBytes,
          build: (routing, scratch) => ({ kind: 'join', left: l!.inputFor(p), right: r!.inputFor(p), spec, out: routing, scratch }),
          done: (res) => {
            if (res.rows !== nL || res.rightRows !== nR) throw new ExecutionError('INTERNAL', 'join: a partition lost rows on its way to the worker; refusing to return a partial result');
            l!.drop(p);
            r!.drop(p);
          },
        };
      },
    };
    const units = new Set(lx.nonEmpty());
    if (withRight) for (const p of rx.nonEmpty()) units.add(p);
    await runKernels(ctx, op, [...units].sort((a, b) => a - b).map((p) => ({ sides: [lx, rx], p, level: 0 })), out);
    lx.release();
    rx.release();

    const schema = schemaToArrow(resolved.output);
    const leftTypes = resolved.output.slice(0, resolved.sources.filter((s) => s.side === 'left').length).map((f) => f.type);
    const usingAt = new Map(plan.using.map((u) => [u.out, u]));
    const combine = (batch: A.RecordBatch, outputs: A.Data[], local: Int32Array): A.RecordBatch | null => {
      const n = local.length;
      if (n === 0) return null;
      let identity = n === batch.numRows;
      for (let k = 0; identity && k < n; k++) identity = local[k] === k;
      const leftCol = (i: number): A.Data => (identity ? batch.data.children[i]! : gatherData(batch.data.children[i]!, local, n));
      const columns = plan.assemble.map((a, o) => {
        if (a.side === 'right') return outputs[a.out]!;
        const u = usingAt.get(o);
        const c = leftCol(a.index);
        return u ? widen(c, resolved.keys.find((k) => k.left.index === a.index)!.left.type, u.type, n) : c;
      });
      return batchFromColumns(schema, columns, n);
    };
    const rest = (outputs: A.Data[], rowIds: Uint32Array): A.RecordBatch | null => {
      const n = rowIds.length;
      const none = new Int32Array(n).fill(-1);
      const columns = plan.assemble.map((a, o) => {
        if (a.side === 'right') return outputs[a.out]!;
        const u = usingAt.get(o);
        if (u) return widen(outputs[u.payload]!, plan.outFields[u.payload]!.type, u.type, n);
        return gatherData(emptyOf(leftTypes[o]!), none, n);
      });
      return batchFromColumns(schema, columns, n);
    };
    for await (const batch of replayWithSparseOutputs(left.store!, out, combine, rest)) {
      ctx.checkAbort();
      yield batch;
    }
  } finally {
    left.exchange.release();
    left.store?.release();
    right?.exchange.release();
    out?.release();
  }
}

/** A key column as the shared (USING) column's wider type. */
function widen(data: A.Data, from: TypeDesc, to: TypeDesc, n: number): A.Data {
  // decimals of one scale: the same unscaled words under the wider precision
  if (from.kind === 'decimal' && to.kind === 'decimal') return data.clone(typeToArrow(to));
  return cast(from, to, data, n, sharedAlloc);
}

function emptyOf(type: TypeDesc): A.Data {
  return emptyData(typeToArrow(type));
}
