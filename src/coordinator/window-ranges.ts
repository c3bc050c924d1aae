/**
 * A window partition too big for one task (one hot PARTITION BY key, or a window without
 * partitionBy), cut into sort ranges that run in order:
 *
 *   sample (partition keys, order keys, row id) of the partition's rows, spilled or not
 *   (./exchange-sample, ./sort-sample) ─► route its rows into ranges of those tuples (./reroute,
 *   as the global sort does) ─► per range, in order: one window task over the range and its two
 *   neighbour ranges (src/worker/window-task, WindowHalo), keeping its own rows' results, with
 *   the carry of the range before (rows, straddling peer group and peer groups of the group
 *   that goes on from earlier ranges, running counts and integer sums) and giving the carry of
 *   the next.
 *
 * Ranges are cut by tuples, so a group is contiguous across them and the rows of a group in a
 * range are in the group's window order; every range after the first starts with its splitter
 * row, whose row id the tasks use to find where a range begins. Three ranges are sized to fit
 * half a task's share of the budget.
 *
 * A window with frames to UNBOUNDED FOLLOWING, whole-partition frames or percentRank /
 * cumeDist / ntile first runs the suffix pass: from the last range back, one task per range
 * loads it with the range before and hands that one the state of the rows from it on of the
 * group that goes on across the boundary (src/ops/window-halo suffixOf); each range task then
 * gets the suffix of the rows after its loaded ones. It reads every range once more, two at a
 * time. What the neighbours and the states cannot answer (bounded frame sides reaching further,
 * unbounded sides of other functions) is PARTITION_TOO_LARGE from the task, never a wrong result.
 *
 * With preserveOrder: false each range's task returns its own rows (./kernel-rows), range after
 * range; the sample is chosen by row id (./exchange-sample), so the ranges, and that order, are
 * the same on every run.
 */
import { rebuildData } from '../columns/shared.js';
import { formatBytes } from '../memory/budget.js';
import type { Exchange } from '../shuffle/exchange.js';
import { needsSuffix, NO_CARRY } from '../ops/window-halo.js';
import type { SortKeyOrder, WindowCarry, WindowHalo, WindowSuffix } from '../types/tasks.js';
import { sampleDestination } from './exchange-sample.js';
import type { WindowStagePlan } from './exec-window.js';
import { loadBytesOf, stableLoadBytesOf, type OversizedSplit, type PartitionUnit } from './partitioned.js';
import { reroute } from './reroute.js';
import { budgetTooSmall, LOAN_SLACK, type RunContext } from './run-context.js';
import { SortSampler } from './sort-sample.js';

const MAX_RANGES = 4096;

/** The share of the budget a range task may need: what it can have alone, next to the spillable half (see refuseTooSmall). */
const ROOM_SHARE = 0.5;

interface RangeSet {
  /** Non-empty ranges, in order. */
  order: number[];
  /** Row id of the first row of range r >= 1 (its splitter row). */
  firstIds: Uint32Array;
  /** Carry for the task of order[k] (from the task of order[k - 1]). */
  carries: Map<number, WindowCarry>;
  /** The suffix pass's states: suffixes[k] for the rows of ranges k.. (null: no suffix pass). */
  suffixes: WindowSuffix[] | null;
  partitionRows: number;
}

const NO_SUFFIX: WindowSuffix = { rows: 0, peerRows: 0, columns: [] };

/** What the window stage needs to build one range's task. */
export interface RangeJob {
  /** Rows the task loads (its range and both neighbours), their load bytes, and a bound of those from their column bytes only (stableLoadBytesOf). */
  rows: number;
  inputBytes: number;
  stableInputBytes: number;
  halo(): WindowHalo;
  /** The task's carry for the next range; its finished neighbours' rows are dropped. */
  done(carry: WindowCarry | undefined): void;
}

export class WindowRanges {
  private readonly sets = new Map<Exchange, RangeSet>();

  constructor(
    private readonly ctx: RunContext,
    private readonly plan: WindowStagePlan,
    /** Scratch of a task that loads `rows` rows of `loadBytes` (two ranges, in the suffix pass). */
    private readonly scratchOf: (rows: number, loadBytes: number) => number,
    /** A range task's loans, from stable load bytes: `rows` loaded, `ownRows` its own with `ownDataBytes` of columns. */
    private readonly rangeTaskBytes: (rows: number, stableLoadBytes: number, ownRows: number, ownDataBytes: number) => number,
  ) {}

  /** The oversized hook: the unit's rows cut into ranges, or null (a range is never cut again; one distinct tuple). */
  async cut(unit: PartitionUnit, need: number): Promise<OversizedSplit | null> {
    const [ex] = unit.sides;
    if (this.sets.has(ex!)) return null;
    const ctx = this.ctx;
    const { partitionPos, orderPos, resolved } = this.plan;
    const parts = Math.min(MAX_RANGES, Math.max(3, Math.ceil((6 * need) / ctx.limits.taskBytes)));
    const keys = [...partitionPos, ...orderPos];
    const orders: SortKeyOrder[] = [
      ...partitionPos.map((column) => ({ column, descending: false, nullsFirst: true })),
      ...orderPos.map((column, k) => ({ column, descending: resolved.orderBy[k]!.descending, nullsFirst: resolved.orderBy[k]!.nulls === 'first' })),
    ];
    const sampler = new SortSampler(
      keys.map((_, k) => k),
      orders,
    );
    const rows = ex!.rowsOf(unit.p);
    // At most half the sampler's room: thinning it (by row id) could drop a hot key's rows.
    for (const part of await sampleDestination(ctx, ex!, unit.p, keys, Math.min(4096, Math.max(1024, 16 * parts)), 'window', 'partition')) sampler.addRows(part.ids, part.keys);
    const split = sampler.splitters(parts);
    if (!split) return null;
    const routing = { kind: 'sortRange' as const, keys: orders, splitters: split.columns, splitterIds: split.ids, partitions: split.count + 1 };
    const sub = await reroute(ctx, ex!, unit.p, routing, 'window.ranges');
    const order = sub.nonEmpty();
    let suffixes: WindowSuffix[] | null;
    try {
      this.refuseTooSmall(sub, order);
      suffixes = needsSuffix(resolved.columns, resolved.measures) ? await this.suffixPass(sub, order) : null;
    } catch (err) {
      // Not yet the kernel units' to release.
      sub.release();
      throw err;
    }
    this.sets.set(sub, { order, firstIds: rebuildData(split.ids).values as Uint32Array, carries: new Map(), suffixes, partitionRows: rows });
    return { units: order.map((p) => ({ sides: [sub], p, level: unit.level + 1 })), owned: [sub], chained: true };
  }

  /**
   * MEMORY_BUDGET_TOO_SMALL when a range's task (the range and its neighbours) cannot run
   * alone next to the spillable half of the budget (ROOM_SHARE), its loans estimated as the
   * task will ask for them but from the ranges' column bytes (stableLoadBytesOf), not from
   * what happened to spill. Decided here rather than when a task's loans fail, so that a job
   * far over that line fails the same way on every run (a loan failing mid-way was a race with
   * the exchanges' spills, and ranges of a row or two could fail a frame first). Close to the
   * line (tasks within a few KiB of half the budget) a run can still fail at a task's loans.
   */
  private refuseTooSmall(ex: Exchange, order: number[]): void {
    const room = ROOM_SHARE * this.ctx.budget.limit;
    let worst = 0;
    for (let k = 0; k < order.length; k++) {
      const loaded = order.slice(Math.max(0, k - 1), k + 2);
      const rows = loaded.reduce((t, r) => t + ex.rowsOf(r), 0);
      const stable = loaded.reduce((t, r) => t + stableLoadBytesOf(ex, r), 0);
      worst = Math.max(worst, this.rangeTaskBytes(rows, stable, ex.rowsOf(order[k]!), ex.contentBytesOf(order[k]!)));
    }
    if (worst > room) {
      throw budgetTooSmall(this.ctx.budget.limit, Math.ceil(worst / ROOM_SHARE / 2 ** 20) * 2 ** 20, `one window task over a sort range of a partition too big for one task, with its two neighbour ranges, needs ${formatBytes(worst)}`);
    }
  }

  /**
   * suffixes[k] for k >= 2 (ranges 0 and 1 are never after a task's loaded rows), from the last
   * range back, one task at a time: each needs the one after it.
   */
  private async suffixPass(ex: Exchange, order: number[]): Promise<WindowSuffix[]> {
    const { ctx, plan } = this;
    const suffixes: WindowSuffix[] = new Array<WindowSuffix>(order.length + 1).fill(NO_SUFFIX);
    for (let k = order.length - 1; k >= 2; k--) {
      const pair = [order[k - 1]!, order[k]!];
      const [scratch] = await ctx.loans('window.suffix', [this.scratchOf(pair.reduce((t, r) => t + ex.rowsOf(r), 0), pair.reduce((t, r) => t + loadBytesOf(ex, r), 0)) + LOAN_SLACK]);
      try {
        const done = await ctx.task({
          kind: 'windowSuffix',
          before: ex.inputFor(pair[0]!),
          input: ex.inputFor(pair[1]!),
          partitionBy: plan.partitionPos,
          orderBy: plan.orderPos,
          measures: plan.measurePos,
          window: plan.resolved,
          next: suffixes[k + 1]!,
          scratch: scratch!.buffer,
        });
        ctx.stats.overflowBytes += done.scratch.overflow;
        suffixes[k] = done.value;
      } finally {
        scratch!.release();
      }
    }
    return suffixes;
  }

  /** The range job of a unit cut by `cut`, or null for an ordinary partition. */
  jobOf(ex: Exchange, p: number): RangeJob | null {
    const set = this.sets.get(ex);
    if (!set) return null;
    const k = set.order.indexOf(p);
    const before = k > 0 ? set.order[k - 1]! : -1;
    const after = k + 1 < set.order.length ? set.order[k + 1]! : -1;
    const firstId = (r: number): number => (r >= 1 ? set.firstIds[r - 1]! : -1);
    const loaded = [before, p, after].filter((r) => r >= 0);
    return {
      rows: loaded.reduce((t, r) => t + ex.rowsOf(r), 0),
      inputBytes: loaded.reduce((t, r) => t + loadBytesOf(ex, r), 0),
      stableInputBytes: loaded.reduce((t, r) => t + stableLoadBytesOf(ex, r), 0),
      halo: () => ({
        before: before >= 0 ? { input: ex.inputFor(before), firstId: firstId(before) } : null,
        after: after >= 0 ? { input: ex.inputFor(after), firstId: firstId(after), more: k + 2 < set.order.length } : null,
        firstId: firstId(p),
        carry: set.carries.get(k) ?? NO_CARRY,
        suffix: set.suffixes ? set.suffixes[k + 2] ?? NO_SUFFIX : null,
        partitionRows: set.partitionRows,
        budget: this.ctx.budget.limit,
      }),
      done: (carry) => {
        if (carry) set.carries.set(k + 1, carry);
        // The range before was this task's neighbour, its last use; the last range goes too.
        if (before >= 0) ex.drop(before);
        if (after < 0) ex.drop(p);
      },
    };
  }
}
