/**
 * Rows of one destination of an exchange routed again into a new exchange: by key range (ASOF
 * join without `by` keys, global sort) or by a second seeded hash (a partition too big for one task). One
 * route task per in-memory chunk and per spill file (read back into the task's scratch), at
 * most one per thread; the source destination is dropped afterwards, so its memory goes back.
 */
import { Exchange } from '../shuffle/exchange.js';
import type { HashRouting, RangeRouting, RouteResult, SortRangeRouting } from '../types/tasks.js';
import { LOAN_SLACK, type RunContext } from './run-context.js';
import { runAll } from './scheduler.js';

export async function reroute(
  ctx: RunContext,
  from: Exchange,
  p: number,
  routing: RangeRouting | HashRouting | SortRangeRouting,
  name: string,
  onRouted?: (res: RouteResult) => void,
): Promise<Exchange> {
  const to = new Exchange(ctx.exchangeEnv(), name, from.schema, routing.partitions);
  // Inputs small enough that a route task's loans (below: output, scratch that reads the
  // spilled piece back) fit one task's share.
  const loanBytes = (bytes: number, rows: number) => 3 * bytes + 40 * rows + 2 * LOAN_SLACK;
  const inputs = from.piecesOf(p, (bytes, rows) => loanBytes(bytes, rows) <= ctx.limits.taskBytes);
  try {
    await ctx.clock.during(
      'partition',
      runAll(
        inputs.map(({ input, bytes, rows }) => async () => {
          const spilled = input.spills.length > 0;
          const [out, scratch] = await ctx.loans(`${name}.route`, [bytes + 8 * rows + LOAN_SLACK, (spilled ? 2 * bytes : 0) + 32 * rows + LOAN_SLACK], [0]);
          try {
            const res = (await ctx.task({ kind: 'route', input, routing, outputBuffer: out!.buffer, scratch: scratch!.buffer })).value;
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
