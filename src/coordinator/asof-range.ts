/**
 * Range partitioning for an ASOF join without `by` keys, so every thread gets work:
 *
 * 1. splitters: quantiles of a sample of the left keys taken while they were ingested (the rows
 *    whose row id is a multiple of a stride: ./sort-sample), equal ones merged; range i holds
 *    keys k with s[i-1] <= k < s[i], so equal keys share a range. The sample depends only on
 *    the input, so the ranges are the same on every run (preserveOrder: false hands the rows on
 *    range by range);
 * 2. route tasks (src/worker/route-task) move both sides' rows into per-range regions, and
 *    report each range's least and greatest right key rows;
 * 3. each range's right input gets, besides its own rows, the greatest-key rows of the nearest
 *    lower range that has any and the least-key rows of the nearest higher one. Without a
 *    condition that is all a left row of the range can match outside it: backward takes the
 *    greatest key <= x, which is in the range or is the greatest key below it (the last of its
 *    equal keys, as the kernel picks among the candidates); forward the least key >= x alike;
 *    nearest compares those two; tolerance and excluded exact matches only remove candidates.
 * A condition can reject those rows, so with one the join stays a single task (explain() says so).
 */
import type * as A from 'apache-arrow';
import { localAlloc } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { describeData, rebuildData, toKeyColumn, toSharedData } from '../columns/shared.js';
import { compareAsofKeys, normalizeAsofKey, type NormalizedKey } from '../ops/asof-keys.js';
import { Exchange } from '../shuffle/exchange.js';
import type { ChunkDesc, RangeRouting } from '../types/tasks.js';
import type { AsofStagePlan } from './exec-asof.js';
import type { Ingested } from './ingest.js';
import { reroute } from './reroute.js';
import type { RunContext } from './run-context.js';

export interface RangeRouted {
  left: Exchange;
  right: Exchange;
  ranges: number;
  /** Boundary rows from neighbouring ranges that range p's left rows may match. */
  extras(p: number): ChunkDesc[];
}

/** `sample`: left key values sampled at ingest (null: none). */
export async function routeByRange(ctx: RunContext, plan: AsofStagePlan, left: Ingested, right: Ingested, sample: A.Data | null): Promise<RangeRouted | null> {
  const splitters = sample ? sampleSplitters(sample, plan, ctx.config.partitions) : null;
  if (!splitters) return null;
  const ranges = splitters.length + 1;
  const splitterDesc = describeData(toSharedData(splitters));
  const mins: ChunkDesc[][] = Array.from({ length: ranges }, () => []);
  const maxs: ChunkDesc[][] = Array.from({ length: ranges }, () => []);

  const route = async (side: Ingested, name: string, keyPos: number, extremes: boolean): Promise<Exchange> => {
    const routing: RangeRouting = { kind: 'range', keyColumn: keyPos, key: plan.resolved.key, splitters: splitterDesc, partitions: ranges, extremes };
    const to = await reroute(ctx, side.exchange, 0, routing, name, (res) => {
      // Boundary rows are copied out before the regions may be spilled or recycled.
      for (const e of res.extremes) {
        const chunk = res.parts.find((x) => x.partition === e.partition)!.chunk;
        if (e.min >= 0) mins[e.partition]!.push(oneRow(chunk, e.min));
        if (e.max >= 0) maxs[e.partition]!.push(oneRow(chunk, e.max));
      }
    });
    side.exchange.release();
    return to;
  };

  const l = await route(left, 'asof-left-ranges', plan.task.leftOn, false);
  const r = await route(right, 'asof-right-ranges', plan.task.rightOn, true);
  return {
    left: l,
    right: r,
    ranges,
    extras(p) {
      const out: ChunkDesc[] = [];
      for (let q = p - 1; q >= 0; q--) {
        if (maxs[q]!.length > 0) {
          out.push(...maxs[q]!);
          break;
        }
      }
      for (let q = p + 1; q < ranges; q++) {
        if (mins[q]!.length > 0) {
          out.push(...mins[q]!);
          break;
        }
      }
      return out;
    },
  };
}

/** Sorted, distinct splitter keys (raw left key type), or null when one range is all there is. */
function sampleSplitters(sample: A.Data, plan: AsofStagePlan, partitions: number): A.Data | null {
  if (partitions < 2 || sample.length === 0) return null;
  const keys: NormalizedKey = normalizeAsofKey(toKeyColumn(sample), plan.resolved.key);
  const valid: number[] = [];
  for (let i = 0; i < sample.length; i++) if (keys.valid === null || keys.valid[i] === 1) valid.push(i);
  if (valid.length < 2) return null;
  valid.sort((a, b) => compareAsofKeys(keys, a, keys, b));
  const picks: number[] = [];
  for (let j = 1; j < partitions; j++) {
    const at = valid[Math.floor((j * valid.length) / partitions)]!;
    if (picks.length === 0 || compareAsofKeys(keys, picks[picks.length - 1]!, keys, at) < 0) picks.push(at);
  }
  // A splitter equal to the least key would leave range 0 empty of purpose; harmless, keep it simple.
  if (picks.length === 0) return null;
  return gatherData(sample, Int32Array.from(picks), picks.length, localAlloc);
}

/** A one-row copy of a chunk's row `pos`, in its own small shared buffers. */
function oneRow(chunk: ChunkDesc, pos: number): ChunkDesc {
  return {
    length: 1,
    rowIds: describeData(toSharedData(rebuildData(chunk.rowIds).slice(pos, 1))),
    columns: chunk.columns.map((c) => describeData(toSharedData(rebuildData(c).slice(pos, 1)))),
  };
}
