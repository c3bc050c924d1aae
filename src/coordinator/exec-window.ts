/**
 * Executes a window stage on the shared blocking path (./partitioned.ts): ingest (hash
 * partitioning by the PARTITION BY keys; one partition without them), one task per non-empty
 * partition (sort once + kernel), outputs routed by row id, then the input replayed in order
 * with the new columns attached.
 */
import * as A from 'apache-arrow';
import { fieldToArrow, schemaFromArrow } from '../columns/arrow-types.js';
import { appendColumns } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import { kernelBytesPerRow } from '../ops/window.js';
import type { FieldDesc } from '../types/column.js';
import { fixedWidth, rowBytesOf, rowBytesOfSchema } from './column-widths.js';
import { stageBytes } from './execute.js';
import type { Stage } from './planner.js';
import { ingest } from './ingest.js';
import { loadBytesOf, OutputRanges, partitionCount, replayWithOutputs, runKernels, type KernelOperator } from './partitioned.js';
import type { RunContext } from './run-context.js';
import { WindowRanges } from './window-ranges.js';

const MAX_ROWS = 0xffffffff;

export interface WindowStagePlan {
  resolved: ResolvedWindow;
  /** Input column indices routed to the workers, and the roles' positions among them. */
  routed: number[];
  partitionPos: number[];
  orderPos: number[];
  measurePos: number[];
}

export function planWindowRouting(resolved: ResolvedWindow): WindowStagePlan {
  const routed: number[] = [];
  const pos = (index: number): number => {
    let p = routed.indexOf(index);
    if (p < 0) p = routed.push(index) - 1;
    return p;
  };
  const partitionPos = resolved.partitionBy.map((c) => pos(c.index));
  const orderPos = resolved.orderBy.map((c) => pos(c.index));
  const measurePos = resolved.measures.map((c) => pos(c.index));
  return { resolved, routed, partitionPos, orderPos, measurePos };
}

/**
 * Scratch a window task needs for `rows` rows whose routed columns take `inputBytes`: the
 * partition made contiguous, group ids and their table, the sort (words, ping-pong buffers,
 * permutation), permuted keys and measures, frames, prefixes and the outputs in sorted order.
 */
function windowScratch(r: ResolvedWindow, rows: number, inputBytes: number): number {
  const permuted = [...r.orderBy, ...r.measures].reduce((s, c) => s + (fixedWidth(c.type) || 16) + 1, 0);
  const outputs = r.columns.reduce((s, c) => s + (fixedWidth(c.type) || 16) + 2, 0);
  return inputBytes + rows * (48 + kernelBytesPerRow(r) + permuted + outputs);
}

export async function* execWindow(
  ctx: RunContext,
  plan: WindowStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputStage: Stage,
  owned: boolean,
): AsyncGenerator<A.RecordBatch> {
  const { resolved } = plan;
  const inputSchema = inputStage.schema;
  const outRowBytesEst = resolved.columns.reduce((s, c) => s + (fixedWidth(c.type) || 16) + 1, 4);
  const routedRowBytes = plan.routed.reduce((s, i) => s + rowBytesOf(schemaFromArrow(inputSchema)[i]!.type), 4);
  const partitions =
    resolved.partitionBy.length === 0
      ? 1
      : partitionCount(ctx, await stageBytes(inputStage), rowBytesOfSchema(inputSchema), windowScratch(resolved, 1, routedRowBytes) + outRowBytesEst);
  ctx.stats.partitions = partitions;
  const { store, exchange, rows } = await ingest(ctx, input, inputSchema, {
    name: 'window',
    routed: plan.routed,
    hashKeys: plan.partitionPos,
    partitions,
    owned,
    retain: true,
  });
  const outFields: FieldDesc[] = resolved.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }));
  const out = new OutputRanges(ctx, 'window', outFields, rows);
  try {
    if (rows > MAX_ROWS) {
      throw new ExecutionError('TOO_MANY_ROWS', `window: ${rows} input rows exceed the ${MAX_ROWS} rows one window stage can number`);
    }
    const outRowBytes = outFields.reduce((s, f) => s + (fixedWidth(f.type) || 16) + 1, 4);
    const ranges = new WindowRanges(ctx, plan);
    const op: KernelOperator = {
      name: 'window',
      // Rows split again by the PARTITION BY keys keep every group whole.
      splitKeys: plan.partitionPos.length > 0 ? [plan.partitionPos] : null,
      measured: [0],
      oversized: (unit, need) => ranges.cut(unit, need),
      job: ({ sides: [ex], p }) => {
        const n = ex!.rowsOf(p);
        const range = ranges.jobOf(ex!, p);
        if (range) {
          return {
            rows: range.rows,
            // Besides the kernel's: the three ranges loaded, then copied into one, and the frames the halo checks recompute.
            scratchBytes: windowScratch(resolved, range.rows, 2 * range.inputBytes) + range.rows * (8 * resolved.columns.length + 16),
            outputBytes: n * outRowBytes,
            build: (routing, scratch) => ({
              kind: 'window',
              input: ex!.inputFor(p),
              partitionBy: plan.partitionPos,
              orderBy: plan.orderPos,
              measures: plan.measurePos,
              window: resolved,
              naive: ctx.config.windowAlgorithm === 'naive',
              out: routing,
              halo: range.halo(),
              scratch,
            }),
            done: (res) => {
              if (res.rows !== n) throw new ExecutionError('INTERNAL', `window: a range held ${n} rows but its task returned ${res.rows}; refusing to return a partial result`);
              range.done(res.carry);
            },
          };
        }
        return {
          rows: n,
          scratchBytes: windowScratch(resolved, n, loadBytesOf(ex!, p)),
          outputBytes: n * outRowBytes,
          build: (routing, scratch) => ({
            kind: 'window',
            input: ex!.inputFor(p),
            partitionBy: plan.partitionPos,
            orderBy: plan.orderPos,
            measures: plan.measurePos,
            window: resolved,
            naive: ctx.config.windowAlgorithm === 'naive',
            out: routing,
            scratch,
          }),
          done: (res) => {
            if (res.rows !== n) throw new ExecutionError('INTERNAL', `window: a partition held ${n} rows but its task read ${res.rows}; refusing to return a partial result`);
            ex!.drop(p);
          },
        };
      },
    };
    await runKernels(ctx, op, exchange.nonEmpty().map((p) => ({ sides: [exchange], p, level: 0 })), out);
    exchange.release();

    const fields = resolved.columns.map((c) => fieldToArrow({ name: c.name, type: c.type, nullable: c.nullable }));
    for await (const batch of replayWithOutputs(store!, out, (b, cols) => appendColumns(b, fields, cols))) {
      ctx.checkAbort();
      yield batch;
    }
  } finally {
    exchange.release();
    store!.release();
    out.release();
  }
}
