/**
 * Rows of one destination of an exchange routed again into a new exchange: by key range (ASOF
 * join without `by` keys, global sort), by a second seeded hash (a partition too big for one
 * task) or by row id (an output range too big for one assemble task). Route
 * tasks take as many of the destination's spilled batches and chunks as their loans fit (read
 * back and copied together in the task's scratch), at most one per thread; the source
 * destination is dropped afterwards, so its memory goes back.
 */
import { Exchange } from '../shuffle/exchange.js';
import type { HashRouting, IdRangeRouting, RangeRouting, RouteResult, SortRangeRouting } from '../types/tasks.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { runAll } from './scheduler.js';

export async function reroute(
  ctx: RunContext,
  from: Exchange,
  p: number,
  routing: RangeRouting | HashRouting | SortRangeRouting | IdRangeRouting,
  name: string,
  onRouted?: (res: RouteResult) => void,
): Promise<Exchange> {
  const to = new Exchange(ctx.exchangeEnv(), name, from.schema, routing.partitions);
  // A route task's loans: its output, and scratch that reads spilled batches back or copies
  // several chunks together, and gathers them once more when their row ids may interleave
  // (partition-input.ts). Inputs are made small enough that the most they can need fits one
  // task's share.
  const interleave = from.mayInterleave(p);
  const scratchBytes = (bytes: number, rows: number, copied: boolean) => (copied ? 2 * bytes : 0) + (copied && interleave ? bytes : 0) + 32 * rows + LOAN_SLACK;
  const outBytes = (bytes: number, rows: number) => bytes + 8 * rows + LOAN_SLACK;
  const inputs = from.piecesOf(p, (bytes, rows) => outBytes(bytes, rows) + scratchBytes(bytes, rows, true) <= ctx.limits.taskBytes);
  try {
    await ctx.clock.during(
      'partition',
      runAll(
        inputs.map(({ input, bytes, rows }) => async () => {
          const copied = input.spills.length > 0 || input.chunks.length > 1;
          const [out, scratch] = await ctx.loans(`${name}.route`, [outBytes(bytes, rows), scratchBytes(bytes, rows, copied)], [0]);
          try {
            const done = await ctx.task({ kind: 'route', input, routing, outputBuffer: out!.buffer, scratch: scratch!.buffer });
            ctx.stats.overflowBytes += done.scratch.overflow;
            const res = done.value;
            scratch!.release();
            onRouted?.(res);
            await to.add(res, out!);
          } finally {
            out!.release();
            scratch!.release();
          }
        }),
        ctx.concurrency,
      ),
    );
    await to.seal();
  } catch (err) {
    to.release();
    throw err;
  }
  from.drop(p);
  return to;
}
