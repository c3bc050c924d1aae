/**
 * A sample of one destination of an exchange, wherever its rows are (in memory or spilled):
 * the rows whose hashed row id falls below a rate (src/worker/sort-task runSortSampleTask: their
 * key columns and row ids), one sortSample task per piece, at most one per thread. Which rows
 * are sampled depends on the destination's rows alone (not on which spilled, nor on how they
 * are cut into pieces), so splitters drawn from it are the same on every run: range splits of
 * a global sort, an oversized window or ASOF partition (whose ranges order the rows of
 * preserveOrder: false).
 */
import type * as A from 'apache-arrow';
import { rebuildData } from '../columns/shared.js';
import type { Exchange } from '../shuffle/exchange.js';
import type { Phase } from '../types/plan.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { runAll } from './scheduler.js';

export interface SamplePart {
  ids: Uint32Array;
  /** The sampled rows of each key column, in the order of `ids`. */
  keys: A.Data[];
}

/** About `wanted` rows of destination `p` of `ex`: the columns at `keys` and the row ids. */
export async function sampleDestination(ctx: RunContext, ex: Exchange, p: number, keys: number[], wanted: number, name: string, phase: Phase): Promise<SamplePart[]> {
  const threshold = Math.min(2 ** 32, Math.ceil((2 ** 32 * Math.max(1, wanted)) / Math.max(1, ex.rowsOf(p))));
  const inputs = ex.piecesOf(p, (bytes, rows) => 2 * bytes + 8 * rows + LOAN_SLACK <= ctx.limits.taskBytes);
  const parts: SamplePart[] = [];
  await runAll(
    inputs.map(({ input, bytes, rows }) => async () => {
      const [scratch] = await ctx.loans(`${name}.sample`, [2 * bytes + 8 * rows + LOAN_SLACK]);
      try {
        const done = await ctx.clock.during(phase, ctx.task({ kind: 'sortSample', input, keys, threshold, scratch: scratch!.buffer }));
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
