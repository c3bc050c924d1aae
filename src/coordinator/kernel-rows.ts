/**
 * The blocking path without the order restored (preserveOrder: false on window and asofJoin):
 *
 *   partitions (every input column routed, nothing retained) ─► one kernel task each, which
 *   returns its partition's rows with the outputs appended (RowsOutput) ─► handed on to the
 *   consumer, unit by unit in partition order, as soon as the head unit's task is done.
 *
 * No output exchange, no retained input, no replay. The order is the units' (partition index,
 * sub-partitions of a split unit in their index order, the ranges of a unit cut by its operator
 * in their key order) and within one the rows' own (row ids): the same on every run with the
 * same input, partitioning, threads and budget, because whether a unit is split or cut is
 * decided from its rows and column bytes only (KernelJob.stableBytes), and a cut's splitters
 * from a sample chosen by row id (./exchange-sample). The ranges of a chained cut (a window
 * partition's, which pass a carry on: ./window-ranges) run one at a time, each once it is the head.
 *
 * Memory: at most one unit per thread is started and not yet consumed; each holds its task's
 * loans while it runs, then only its rows (the output loan's buffer, counted as
 * `<name>.out.rows` until the consumer moves past the unit's last batch; the buffer never goes
 * back to the pool, the consumer may keep the batches). A unit whose task needs more than one
 * task's share runs alone: it starts only once it is the head and nothing else is held.
 */
import type * as A from 'apache-arrow';
import { rebuildData } from '../columns/shared.js';
import type { KernelResult, RowsOutput } from '../types/tasks.js';
import { KernelUnits, type KernelOperator, type PartitionUnit } from './partitioned.js';
import type { Loan, RunContext } from './run-context.js';
import { routedTotal } from '../shuffle/routed-parts.js';

/** Rows per batch handed on (views of a unit's region, no copy), about a reader's batch. */
const BATCH_ROWS = 1 << 16;

/** A run of rows of one unit's region: its columns (every input column, then the outputs). */
export interface RowsBatch {
  length: number;
  columns: A.Data[];
}

type Outcome = { kind: 'rows'; columns: A.Data[]; length: number; bytes: number } | { kind: 'split'; subs: PartitionUnit[]; chained: boolean } | { kind: 'none' };

interface Slot {
  unit: PartitionUnit;
  outcome: Promise<Outcome> | null;
  /** A unit of a chained cut (KernelUnits.cut): it starts only once the one before it is done. */
  chained: boolean;
}

export async function* streamKernelRows(ctx: RunContext, op: KernelOperator<RowsOutput>, units: PartitionUnit[]): AsyncGenerator<RowsBatch> {
  const k = new KernelUnits(ctx, op, units, true);
  const held = ctx.budget.reserve(`${op.name}.out.rows`);
  const slots: Slot[] = units.map((unit) => ({ unit, outcome: null, chained: false }));
  const started: Array<Promise<Outcome>> = [];

  const keep = (res: KernelResult, loan: Loan | null): Outcome => {
    // A rows output is destination 0, whole: its columns as they are, no cut.
    const length = routedTotal(res);
    if (length === 0 || !loan) {
      loan?.release();
      return { kind: 'none' };
    }
    const buffer = loan.handOver(held);
    // Shared memory beyond the loan (the estimate was short) is counted too, or reported.
    let extra = res.extraBytes;
    if (!held.tryGrow(extra)) {
      ctx.stats.overflowBytes += extra;
      extra = 0;
    }
    return { kind: 'rows', columns: res.columns.map(rebuildData), length, bytes: buffer.byteLength + extra };
  };

  const start = async (slot: Slot, plan: ReturnType<KernelUnits<RowsOutput>['plan']>): Promise<Outcome> => {
    if (plan.kind === 'empty') {
      k.skip(slot.unit);
      return { kind: 'none' };
    }
    if (plan.kind === 'split') return { kind: 'split', subs: await k.split(slot.unit, plan.need), chained: false };
    if (plan.kind === 'cut') {
      const cut = await k.cut(slot.unit, plan.need);
      return { kind: 'split', subs: cut.units, chained: cut.chained };
    }
    let outcome: Outcome = { kind: 'none' };
    await k.run(slot.unit, plan, (buffer) => ({ kind: 'rows', buffer }), async (res, loan) => {
      outcome = keep(res, loan);
    });
    return outcome;
  };

  try {
    for (;;) {
      // Start units in order while fewer than one per thread are started and not consumed.
      for (let i = 0; i < slots.length && i < ctx.concurrency; i++) {
        const slot = slots[i]!;
        if (slot.outcome) continue;
        // The sub-units of a cut replace the head, so the one before a chained unit at i > 0 is
        // started and maybe not done: it waits until it is the head itself (its carry is in).
        if (slot.chained && i > 0) break;
        const plan = k.plan(slot.unit);
        const alone = plan.kind === 'run' && plan.scratchBytes + plan.outputBytes > ctx.limits.taskBytes;
        if (alone && i > 0) break;
        slot.outcome = start(slot, plan);
        slot.outcome.catch(() => {}); // observed when it is the head
        started.push(slot.outcome);
        if (alone) break;
      }
      const head = slots[0];
      if (!head) break;
      const outcome = await ctx.clock.during('kernel', head.outcome!);
      slots.shift();
      if (outcome.kind === 'split') {
        slots.unshift(...outcome.subs.map((unit) => ({ unit, outcome: null, chained: outcome.chained })));
        continue;
      }
      if (outcome.kind === 'none') continue;
      for (let at = 0; at < outcome.length; at += BATCH_ROWS) {
        const length = Math.min(BATCH_ROWS, outcome.length - at);
        ctx.checkAbort();
        yield { length, columns: at === 0 && length === outcome.length ? outcome.columns : outcome.columns.map((c) => c.slice(at, length)) };
      }
      held.shrink(outcome.bytes);
    }
  } finally {
    // Nothing left running: tasks in flight finish (queued ones see an abort), then every
    // unit's rows not handed on are let go.
    await Promise.allSettled(started);
    held.free();
    k.release();
  }
}
