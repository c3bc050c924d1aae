/**
 * A sample of one destination of an exchange, wherever its rows are (in memory or spilled):
 * every stride-th row of each piece (src/worker/sort-task runSortSampleTask: its key columns and
 * row ids), one sortSample task per piece, at most one per thread. Splitters of range splits
 * (a global sort's ranges, an oversized window or ASOF partition) are drawn from it.
 */
import type * as A from 'apache-arrow';
import { rebuildData } from '../columns/shared.js';
import type { Exchange } from '../shuffle/exchange.js';
import type { Phase } from '../types/plan.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { runAll } from './scheduler.js';

export interface SamplePart {
  ids: Uint32Array;
  /** The sampled rows of each key column, in the piece's row order. */
  keys: A.Data[];
}

/** About `wanted` rows of destination `p` of `ex`: the columns at `keys` and the row ids. */
export async function sampleDestination(ctx: RunContext, ex: Exchange, p: number, keys: number[], wanted: number, name: string, phase: Phase): Promise<SamplePart[]> {
  const stride = Math.max(1, Math.floor(ex.rowsOf(p) / Math.max(1, wanted)));
  const inputs = ex.piecesOf(p, Math.max(1, Math.floor(ctx.limits.taskBytes / 4)));
  const parts: SamplePart[] = [];
  await runAll(
    inputs.map(({ input, bytes, rows }) => async () => {
      const [scratch] = await ctx.loans(`${name}.sample`, [2 * bytes + 8 * rows + LOAN_SLACK]);
      try {
        const done = await ctx.clock.during(phase, ctx.task({ kind: 'sortSample', input, keys, stride, scratch: scratch!.buffer }));
        const v = done.value;
        parts.push({ ids: rebuildData(v.rowIds).values as Uint32Array, keys: v.columns.map(rebuildData) });
      } finally {
        scratch!.release();
      }
    }),
    ctx.concurrency,
  );
  return parts;
}
