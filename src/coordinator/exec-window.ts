/**
 * Executes a window stage: ingest (partition by the PARTITION BY keys), one task per non-empty
 * partition (sort once + kernel, outputs written straight to their global row positions in
 * shared arrays), then replay the input batches in order with the new columns attached.
 */
import * as A from 'apache-arrow';
import { sharedAlloc } from '../columns/arena.js';
import { fieldToArrow, typeToArrow } from '../columns/arrow-types.js';
import { bytesToBitmap } from '../columns/bits.js';
import { appendColumns, bufRefOf } from '../columns/shared.js';
import { ExecutionError, PlanError } from '../errors.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import { typeToString, type TypeDesc } from '../types/column.js';
import type { TypedArray } from '../types/keys.js';
import type { WindowTask } from '../types/tasks.js';
import { ingest } from './ingest.js';
import type { RunContext } from './run-context.js';
import { runAll } from './scheduler.js';

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
  // Outputs go to fixed-width arrays indexed by row id: variable-width results need the sorted-order output path.
  for (const c of resolved.columns) {
    if (!FIXED_WIDTH.has(c.type.kind)) {
      throw new PlanError('UNSUPPORTED_TYPE', `window column ${JSON.stringify(c.name)}: ${c.fn}() of a ${typeToString(c.type)} column is not supported yet (only fixed-width results)`, {
        column: c.name,
      });
    }
  }
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

const FIXED_WIDTH = new Set(['bool', 'int', 'float', 'date', 'timestamp', 'duration', 'decimal']);

/** Elements of the output array per row (decimal128: four 32-bit words). */
function strideOf(t: TypeDesc): number {
  return t.kind === 'decimal' ? 4 : 1;
}

interface OutputArrays {
  type: TypeDesc;
  values: TypedArray;
  /** One byte per row, 1 = NULL. Zero-filled, and tasks write only their NULLs: untouched pages stay free. */
  nulls: Uint8Array;
}

export async function* execWindow(
  ctx: RunContext,
  plan: WindowStagePlan,
  input: AsyncIterable<A.RecordBatch>,
  inputSchema: A.Schema,
  owned: boolean,
): AsyncGenerator<A.RecordBatch> {
  const { resolved } = plan;
  const partitions = resolved.partitionBy.length === 0 ? 1 : ctx.config.partitions;
  const { store, exchange, rows } = await ingest(ctx, input, inputSchema, {
    name: 'window',
    routed: plan.routed,
    hashKeys: plan.partitionPos,
    partitions,
    owned,
  });
  const outputReservation = ctx.budget.reserve('window.output');
  try {
    if (rows > MAX_ROWS) {
      throw new ExecutionError('TOO_MANY_ROWS', `window: ${rows} input rows exceed the ${MAX_ROWS} rows one window stage can number`);
    }
    // Output columns indexed by global row id, shared so every worker writes its rows in place.
    const outputs: OutputArrays[] = resolved.columns.map((c) => {
      const Ctor = arrayTypeOf(c.type);
      const values = sharedAlloc(Ctor, rows * strideOf(c.type));
      const nulls = sharedAlloc(Uint8Array, rows);
      outputReservation.forceGrow(values.byteLength + nulls.byteLength);
      return { type: c.type, values, nulls };
    });
    const outDescs = outputs.map((o) => ({ values: bufRefOf(o.values), nulls: bufRefOf(o.nulls) }));
    const parts = exchange.nonEmpty();
    const t0 = performance.now();
    const done = await runAll(
      parts.map((p) => async () => {
        const task: WindowTask = {
          kind: 'window',
          input: exchange.inputFor(p),
          partitionBy: plan.partitionPos,
          orderBy: plan.orderPos,
          measures: plan.measurePos,
          window: resolved,
          naive: ctx.config.windowAlgorithm === 'naive',
          outputs: outDescs,
        };
        const res = await ctx.run<{ rows: number }>(task);
        exchange.drop(p);
        return res.rows;
      }),
      ctx.concurrency,
      (k) => ctx.progress('kernel', k, parts.length),
    );
    const processed = done.reduce((s, r) => s + r, 0);
    if (processed !== rows) {
      throw new ExecutionError('INTERNAL', `window: partitions held ${processed} rows but ${rows} came in; refusing to return a partial result`);
    }
    ctx.addPhase('kernel', performance.now() - t0);
    exchange.release();

    const fields = resolved.columns.map((c) => fieldToArrow({ name: c.name, type: c.type, nullable: c.nullable }));
    for await (const { batch, rowBase } of store.replay()) {
      ctx.checkAbort();
      const cols = outputs.map((o) => sliceOutput(o, rowBase, batch.numRows));
      yield appendColumns(batch, fields, cols);
    }
  } finally {
    exchange.release();
    store.release();
    outputReservation.free();
  }
}

/** A validity bitmap from NULL-marker bytes, or none when the range has no NULL. */
function validityFromNullBytes(nulls: Uint8Array): { nullCount: number; nullBitmap: Uint8Array | undefined } {
  const n = nulls.length;
  let i = 0;
  while (i < n && nulls[i] === 0) i++;
  if (i === n) return { nullCount: 0, nullBitmap: undefined };
  const valid = new Uint8Array(n);
  for (let k = 0; k < n; k++) valid[k] = nulls[k] ? 0 : 1;
  const { bitmap, set } = bytesToBitmap(valid, n);
  return { nullCount: n - set, nullBitmap: bitmap };
}

function arrayTypeOf(t: TypeDesc): { new (b: ArrayBufferLike, o?: number, l?: number): TypedArray; new (n: number): TypedArray; BYTES_PER_ELEMENT: number } {
  if (t.kind === 'bool') return Uint8Array;
  return typeToArrow(t).ArrayType as never;
}

/** Rows [start, start + length) of an output as Arrow Data (values are views, not copies). */
function sliceOutput(o: OutputArrays, start: number, length: number): A.Data {
  const type = typeToArrow(o.type);
  const { nullCount, nullBitmap } = validityFromNullBytes(o.nulls.subarray(start, start + length));
  if (o.type.kind === 'bool') {
    const { bitmap: bits } = bytesToBitmap(o.values.subarray(start, start + length) as Uint8Array, length);
    return A.makeData({ type: type as A.Bool, length, nullCount, nullBitmap, data: bits });
  }
  const stride = strideOf(o.type);
  return A.makeData({ type: type as A.Int, length, nullCount, nullBitmap, data: o.values.subarray(start * stride, (start + length) * stride) as never });
}
