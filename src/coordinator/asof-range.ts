/**
 * ASOF key ranges: both sides of one partition cut into ranges of (by keys, on key) tuples
 * (src/ops/asof-range-order), so each range is a task that fits. Used for a join without `by`
 * keys (all rows one group: ranges of the on key, so every thread gets work) and for a `by`
 * partition larger than a task's share of the budget (one hot by key, or a few: ranges of
 * whole groups and of groups cut by on key).
 *
 * 1. splitters: quantiles of a sample of the left tuples, equal ones merged; range i holds
 *    tuples t with s[i-1] <= t < s[i], so equal tuples share a range. The sample depends only
 *    on the rows, never on where they are (in memory or spilled) nor on timing, so the ranges
 *    are the same on every run (preserveOrder: false hands the rows on range by range): for a
 *    join without `by` keys, the left keys sampled by row id while they were ingested
 *    (./sort-sample); for an oversized `by` partition, the rows of the partition whose hashed
 *    row id falls below a rate (./exchange-sample), spilled or not;
 * 2. route tasks (src/worker/route-task) move both sides' rows into per-range regions, and
 *    report each range's least and greatest right tuple rows;
 * 3. each range's right input gets, besides its own rows, the greatest-tuple rows of the
 *    nearest lower range that has any and the least-tuple rows of the nearest higher one (or,
 *    with none inside the partition, the rows the partition itself borrowed from outside).
 *    Without a condition that is all a left row (b, x) of the range can match outside it:
 *    backward takes the greatest right (b, y) with y <= x; if it lies below the range, every
 *    tuple between it and the range's first splitter has by values b, so it is the greatest
 *    right tuple below the range (the last of its equal keys, as the kernel picks among the
 *    candidates); forward the least above alike; nearest compares those two; tolerance and
 *    excluded exact matches only remove candidates; a borrowed row of another group is ignored
 *    by the kernel. A condition can reject those rows, so with one a partition is never cut
 *    (explain() says so; an oversized one is an error naming the limit).
 */
import type * as A from 'apache-arrow';
import { localAlloc } from '../columns/arena.js';
import { concatData, gatherData } from '../columns/gather.js';
import { describeData, rebuildData, toKeyColumn, toSharedData } from '../columns/shared.js';
import { normalizeAsofKey } from '../ops/asof-keys.js';
import { asofTupleComparer } from '../ops/asof-range-order.js';
import type { Exchange } from '../shuffle/exchange.js';
import { routedParts } from '../shuffle/routed-parts.js';
import type { ChunkDesc, RangeRouting } from '../types/tasks.js';
import type { AsofStagePlan } from './exec-asof.js';
import { sampleDestination } from './exchange-sample.js';
import type { PartitionUnit } from './partitioned.js';
import { reroute } from './reroute.js';
import type { RunContext } from './run-context.js';

/** Sample rows per range wanted, and the bounds of the sample. */
const SAMPLE_PER_RANGE = 16;
const MIN_SAMPLE = 1024;
const MAX_SAMPLE = 8192;

export interface AsofRanges {
  /** One unit per range with left rows, in tuple order, each with the right rows it may borrow. */
  units: PartitionUnit[];
  /** The two exchanges the ranges live in (left, right): released by the caller after the units ran. */
  owned: Exchange[];
  /** Left rows of the largest range (all of them: the sample found no cut). */
  largest: number;
}

/** Sampled left rows: their ids, and their tuples (by keys then the on key, one Data each), in parts in any order. */
export type TupleSample = Array<{ ids: Uint32Array; keys: A.Data[] }>;

/**
 * Destination `p` of both sides cut into up to `parts` tuple ranges; `outside`: the right rows
 * the partition borrows from outside it (none for a whole hash partition); `sample`: the left
 * tuples sampled at ingest, or null to sample destination p of `left` here. Null when the
 * sample holds fewer than two distinct tuples (nothing moved).
 */
export async function splitAsofByRange(
  ctx: RunContext,
  plan: AsofStagePlan,
  left: Exchange,
  right: Exchange,
  p: number,
  parts: number,
  level: number,
  outside: { below: ChunkDesc[]; above: ChunkDesc[] } | null,
  sample: TupleSample | null,
): Promise<AsofRanges | null> {
  if (parts < 2) return null;
  const { leftBy, leftOn, rightBy, rightOn } = plan.task;
  const wanted = Math.min(MAX_SAMPLE, Math.max(MIN_SAMPLE, SAMPLE_PER_RANGE * parts));
  const tuples = sample ?? (await sampleDestination(ctx, left, p, [...leftBy, leftOn], wanted, 'asof-left', 'partition'));
  const splitters = splittersOf(tuples, leftBy.length, plan, parts);
  if (!splitters) return null;
  const ranges = splitters.length + 1;
  const mins: ChunkDesc[][] = Array.from({ length: ranges }, () => []);
  const maxs: ChunkDesc[][] = Array.from({ length: ranges }, () => []);

  const route = (from: Exchange, name: string, by: number[], on: number, extremes: boolean): Promise<Exchange> => {
    const routing: RangeRouting = {
      kind: 'range',
      keyColumn: on,
      key: plan.resolved.key,
      byColumns: by,
      splitterBy: splitters.by,
      splitters: splitters.on,
      partitions: ranges,
      extremes,
    };
    return reroute(ctx, from, p, routing, name, (res) => {
      // Boundary rows are copied out before the regions may be spilled or recycled.
      const wanted = new Set(res.extremes.map((e) => e.partition));
      const parts = wanted.size > 0 ? routedParts(res, (d) => wanted.has(d)) : [];
      for (const e of res.extremes) {
        const chunk = parts.find((x) => x.partition === e.partition)!.chunk;
        if (e.min >= 0) mins[e.partition]!.push(oneRow(chunk, e.min));
        if (e.max >= 0) maxs[e.partition]!.push(oneRow(chunk, e.max));
      }
    });
  };
  const suffix = level === 0 ? 'ranges' : `ranges${level}`;
  const l = await route(left, `asof-left-${suffix}`, leftBy, leftOn, false);
  let r: Exchange;
  try {
    r = await route(right, `asof-right-${suffix}`, rightBy, rightOn, true);
  } catch (err) {
    l.release();
    throw err;
  }
  const below = (q: number): ChunkDesc[] => {
    for (let k = q - 1; k >= 0; k--) if (maxs[k]!.length > 0) return maxs[k]!;
    return outside?.below ?? [];
  };
  const above = (q: number): ChunkDesc[] => {
    for (let k = q + 1; k < ranges; k++) if (mins[k]!.length > 0) return mins[k]!;
    return outside?.above ?? [];
  };
  const units: PartitionUnit[] = [];
  let largest = 0;
  for (let q = 0; q < ranges; q++) {
    const rows = l.rowsOf(q);
    largest = Math.max(largest, rows);
    // A range without left rows has nothing to compute; its right rows are dropped with it.
    if (rows === 0) r.drop(q);
    else units.push({ sides: [l, r], p: q, level, outside: { below: below(q), above: above(q) } });
  }
  return { units, owned: [l, r], largest };
}

/** Sorted, distinct splitter tuples (left types) in shared memory, or null when one range is all there is. */
function splittersOf(sample: TupleSample, byCount: number, plan: AsofStagePlan, parts: number): { by: ReturnType<typeof describeData>[]; on: ReturnType<typeof describeData>; length: number } | null {
  const filled = sample.filter((s) => s.keys[0]!.length > 0);
  if (filled.length === 0) return null;
  const cols = filled[0]!.keys.map((_, c) => (filled.length === 1 ? filled[0]!.keys[c]! : concatData(filled.map((s) => s.keys[c]!), localAlloc)));
  const by = cols.slice(0, byCount).map((d) => toKeyColumn(d));
  const on = normalizeAsofKey(toKeyColumn(cols[byCount]!), plan.resolved.key);
  const ids = filled.length === 1 ? filled[0]!.ids : Uint32Array.from(filled.flatMap((s) => Array.from(s.ids)));
  const cmp = asofTupleComparer(by, on, by, on);
  const valid: number[] = [];
  for (let i = 0; i < cols[0]!.length; i++) if (on.valid === null || on.valid[i] === 1) valid.push(i);
  if (valid.length < 2) return null;
  // Row ids order equal tuples, so the splitters are the same rows whatever order the parts came in.
  valid.sort((a, b) => cmp(a, b) || ids[a]! - ids[b]!);
  const picks: number[] = [];
  for (let j = 1; j < parts; j++) {
    const at = valid[Math.floor((j * valid.length) / parts)]!;
    if (picks.length === 0 || cmp(picks[picks.length - 1]!, at) < 0) picks.push(at);
  }
  // A splitter equal to the least tuple leaves range 0 without left rows: harmless.
  if (picks.length === 0) return null;
  const idx = Int32Array.from(picks);
  const shared = (d: A.Data) => describeData(toSharedData(gatherData(d, idx, idx.length, localAlloc)));
  return { by: cols.slice(0, byCount).map(shared), on: shared(cols[byCount]!), length: picks.length };
}

/** A one-row copy of a chunk's row `pos`, in its own small shared buffers. */
function oneRow(chunk: ChunkDesc, pos: number): ChunkDesc {
  return {
    length: 1,
    rowIds: describeData(toSharedData(rebuildData(chunk.rowIds).slice(pos, 1))),
    columns: chunk.columns.map((c) => describeData(toSharedData(rebuildData(c).slice(pos, 1)))),
  };
}

