/**
 * ASOF task, run in a worker for one partition: both sides' rows of the partition →
 * shared group ids for the `by` keys (right side builds, left probes) → each side sorted ONCE
 * by (group, key, row id) → the pure kernel (src/ops/asof-join) → per left row its right match
 * → one output row per left row, with its left row id: `__matched` (1 = a match) and the
 * right payload columns gathered by the match (NULL without one), grouped by row-id range
 * (./routed-chunks) for the output exchange; or (rows output, preserveOrder: false) the left
 * rows themselves with the payload gathered beside them.
 * Rows that can never match (NULL by values without nullsEqual, by values absent on the right)
 * are sorted past the last group and simply get no match.
 * A residual condition is evaluated vectorized over each round of candidate pairs: the columns
 * it reads are gathered for those pairs and the bound expression is evaluated on them.
 */
import * as A from 'apache-arrow';
import { gatherData } from '../columns/gather.js';
import { toKeyColumn } from '../columns/shared.js';
import { evaluatePredicate } from '../expr/evaluate.js';
import { asofMatch } from '../ops/asof-join.js';
import { asofExactRange, asofKeyRanges, asofSortFields, exactRangeOf, normalizeAsofKey, permuteAsofKey, permuteScaledKey, scaledWordsKey, type NormalizedKey, type ScaledWordsKey } from '../ops/asof-keys.js';
import type { KeyColumn, KeyField } from '../types/keys.js';
import type { AsofTask, KernelResult } from '../types/tasks.js';
import { groupStartsOf, matchGroupIds } from './group-ids.js';
import { loadPartition } from './partition-input.js';
import { claimStaging, scatterDirect, stageDirect, takeDirect } from './direct-output.js';
import { groupByDestination, noRows, outputRangesOf, routedChunks, rowsArena, rowsRegion } from './routed-chunks.js';
import { scratchAlloc, scratchMark, scratchRelease, scratchWords } from './scratch.js';
import { encodeKeyField, fieldWords, packFields, packGroupAndExact, packGroupAndScaled } from './sort-keys.js';
import { argsortWords } from './sort.js';

interface SortedSide {
  n: number; // rows that can match, sorted first
  perm: Uint32Array;
  groupStarts: Uint32Array;
}

export async function runAsofTask(task: AsofTask): Promise<KernelResult> {
  const spec = task.spec;
  const out = task.out;
  // Rows output: the left rows are loaded straight into the region they leave in (unless only
  // the matched ones leave: then they are gathered there).
  const arena = out.kind === 'rows' ? rowsArena(out.buffer) : null;
  const leftInto = arena && !spec.dropUnmatched ? arena.alloc : null;
  const [left, right] = await Promise.all([loadPartition(task.left, false, leftInto), loadPartition(task.right)]);
  // Key views of the `by` and `on` columns only: payload columns may be of any type (lists, structs).
  const keysOf = (columns: A.Data[], used: number[]): KeyColumn[] => {
    const out: KeyColumn[] = [];
    for (const i of used) out[i] ??= toKeyColumn(columns[i]!);
    return out;
  };
  const lk = keysOf(left.columns, [...spec.leftBy, spec.leftOn]);
  const rk = keysOf(right.columns, [...spec.rightBy, spec.rightOn]);

  const { buildIds, probeIds, groups } = matchGroupIds(
    spec.rightBy.map((i) => rk[i]!),
    spec.leftBy.map((i) => lk[i]!),
    right.n,
    left.n,
    spec.nullsEqual,
  );
  // one common base for both sides keeps large integer/temporal keys (e.g. ns timestamps) in
  // exact doubles; the same pass gives each side's range, which its sort words need
  const { base, spans } = asofKeyRanges([lk[spec.leftOn]!, rk[spec.rightOn]!], spec.key);
  const lkey = sideKey(lk[spec.leftOn]!, spec.key, base, spans?.[0], groups);
  const rkey = sideKey(rk[spec.rightOn]!, spec.key, base, spans?.[1], groups);
  const ls = sortSide(probeIds, groups, lkey, lk[spec.leftOn]!, spans?.[0]);
  const rs = sortSide(buildIds, groups, rkey, rk[spec.rightOn]!, spans?.[1]);

  let checkPairs: ((lp: Int32Array, rp: Int32Array, count: number) => Uint8Array) | undefined;
  if (spec.condition) {
    const condition = spec.condition;
    checkPairs = (lp, rp, count) => {
      const li = scratchAlloc(Int32Array, count);
      const ri = scratchAlloc(Int32Array, count);
      for (let k = 0; k < count; k++) {
        li[k] = ls.perm[lp[k]!]!;
        ri[k] = rs.perm[rp[k]!]!;
      }
      const cols: A.Data[] = spec.conditionColumns.map((c) =>
        c.side === 'left' ? gatherData(left.columns[c.pos]!, li, count, scratchAlloc) : gatherData(right.columns[c.pos]!, ri, count, scratchAlloc),
      );
      return evaluatePredicate(condition, cols, count);
    };
  }

  const match = asofMatch({
    left: { n: ls.n, groupStarts: ls.groupStarts, key: sortedKey(lkey, ls.perm.subarray(0, ls.n)) },
    right: { n: rs.n, groupStarts: rs.groupStarts, key: sortedKey(rkey, rs.perm.subarray(0, rs.n)) },
    direction: spec.direction,
    tolerance: spec.tolerance,
    allowExactMatches: spec.allowExactMatches,
    checkPairs,
  });

  // Per left row (partition-local index): the partition-local right row it matched, or -1.
  const nL = left.n;
  const pick = scratchAlloc(Int32Array, nL).fill(-1);
  const matched = scratchAlloc(Uint8Array, nL);
  for (let i = 0; i < ls.n; i++) {
    const m = match[i]!;
    if (m < 0) continue;
    const l = ls.perm[i]!;
    pick[l] = rs.perm[m]!;
    matched[l] = 1;
  }
  if (out.kind === 'rows') {
    const region = arena!;
    if (!spec.dropUnmatched) {
      const payload = spec.payload.map((pos) => gatherData(right.columns[pos]!, pick, nL, region.alloc));
      return { ...rowsRegion(region, [...left.columns, ...payload], left.rowIds, nL), rows: nL, rightRows: right.n };
    }
    let kept = 0;
    for (let i = 0; i < nL; i++) kept += matched[i]!;
    const keep = scratchAlloc(Int32Array, kept);
    const picked = scratchAlloc(Int32Array, kept);
    for (let i = 0, k = 0; i < nL; i++) {
      if (!matched[i]) continue;
      keep[k] = i;
      picked[k++] = pick[i]!;
    }
    const ids = region.alloc(Uint32Array, kept);
    for (let k = 0; k < kept; k++) ids[k] = left.rowIds[keep[k]!]!;
    const columns = [...left.columns.map((c) => gatherData(c, keep, kept, region.alloc)), ...spec.payload.map((pos) => gatherData(right.columns[pos]!, picked, kept, region.alloc))];
    return { ...rowsRegion(region, columns, ids, kept), rows: nL, rightRows: right.n };
  }
  if (out.kind === 'direct') {
    const target = left.rowIds.subarray(0, nL);
    // Staged: the left rows' values at the task's own stretch, in load order (see DirectStaging).
    const base = out.staging ? claimStaging(out.staging, target) : -1;
    if (out.staging) stageDirect(matched, target, out.columns[0]!, base);
    else scatterDirect(matched, target, out.columns[0]!);
    spec.payload.forEach((pos, c) => takeDirect(right.columns[pos]!, pick, target, out.columns[c + 1]!, base));
    return { ...noRows(), rows: nL, rightRows: right.n };
  }
  const columns: A.Data[] = [
    A.makeData({ type: new A.Uint8(), length: nL, data: matched }),
    ...spec.payload.map((pos) => gatherData(right.columns[pos]!, pick, nL, scratchAlloc)),
  ];
  const dest = outputRangesOf(left.rowIds, nL, out.rangeShift);
  const routed = routedChunks(groupByDestination(columns, left.rowIds, dest, out.ranges, out.buffer));
  return { ...routed, rows: nL, rightRows: right.n };
}

/**
 * A side's key as sort fields. Strings are ranked by the worker's key encoder, which sorts
 * only the distinct values (asofSortFields ranks every row with a comparator).
 */
function sortFields(key: NormalizedKey, raw: KeyColumn): KeyField[] {
  return key.kind === 'utf8' ? encodeKeyField(raw, { descending: false, nullsFirst: true }, raw.length, scratchWords) : asofSortFields(key, scratchAlloc);
}

/** A side's key: normalized in row order, or its scaled words (made into doubles in sorted order only) with its range. */
type SideKey = { kind: 'normalized'; key: NormalizedKey } | { kind: 'scaled'; key: ScaledWordsKey; range: { min: number; bits: number } };

/** Scaled when its range packs with the group ids in one exact double (sortSide), else normalized. */
function sideKey(col: KeyColumn, plan: AsofTask['spec']['key'], base: bigint | null, span: [number, number] | null | undefined, groups: number): SideKey {
  const scaled = scaledWordsKey(col, plan, base, span);
  const range = scaled !== null && span ? exactRangeOf(span[0], span[1]) : null;
  if (scaled !== null && range !== null && groupBitsOf(groups) + range.bits <= 53) return { kind: 'scaled', key: scaled, range };
  return { kind: 'normalized', key: normalizeAsofKey(col, plan, base, scratchAlloc) };
}

/** Bits of a group id in 0..groups (`groups`: rows without a group). */
function groupBitsOf(groups: number): number {
  return 32 - Math.clz32(groups);
}

/** The side's key in sorted order (`order`: its perm's rows that can match), from the task's scratch. */
function sortedKey(side: SideKey, order: Uint32Array): NormalizedKey {
  return side.kind === 'scaled' ? permuteScaledKey(side.key, order, scratchAlloc) : permuteAsofKey(side.key, order, scratchAlloc);
}

/**
 * Sorts one side by (group id, key); rows with group -1 go last and are cut off.
 * Stable, so equal keys stay in row-id order. A range-reduced key (integers, temporals,
 * strings' ranks) is packed with the group id into the fewest radix digits (sort-keys: e.g. 125
 * groups and a 37-bit span of microseconds, 44 bits, in 4 passes instead of 5); a float or wide
 * key keeps its words apart from the group's, whose constant bits the sort drops. The words
 * live in scratch only while the sort runs.
 */
function sortSide(ids: Int32Array, groups: number, side: SideKey, raw: KeyColumn, span: [number, number] | null | undefined): SortedSide {
  const n = ids.length;
  const groupStarts = groupStartsOf(ids, groups);
  const perm = scratchAlloc(Uint32Array, n, 'overwritten'); // argsortWords writes all n
  const mark = scratchMark();
  argsortWords(sortWords(ids, groups, side, raw, span), n, perm);
  scratchRelease(mark);
  // rows with a group sort first: as many as the last group's run ends at
  return { n: groupStarts[groups]!, perm, groupStarts };
}

/** sortSide's words, in the task's scratch. */
function sortWords(ids: Int32Array, groups: number, side: SideKey, raw: KeyColumn, span: [number, number] | null | undefined): Uint32Array[] {
  const n = ids.length;
  const groupBits = groupBitsOf(groups);
  if (side.kind === 'scaled') {
    // sideKey made it scaled for a range that packs with the group ids
    const { lo32, hi32, factor } = side.key;
    return packGroupAndScaled(ids, groups, groupBits, lo32, hi32, factor, side.range.min, side.range.bits, n, scratchWords);
  }
  const key = side.key;
  const range = key.kind === 'f64' && key.exact ? exactRange(key, span) : null;
  if (key.kind === 'f64' && range !== null && groupBits + range.bits <= 53) {
    return packGroupAndExact(ids, groups, groupBits, key.values, key.valid, range.min, range.bits, n, scratchWords);
  }
  const gword = groupWords(ids, groups);
  const fields = sortFields(key, raw);
  return key.kind === 'utf8' ? packFields([{ bits: groupBits, lo: gword, hi: null }, ...fields], n, scratchWords) : [gword, ...fieldWords(fields)];
}

/** An exact key's least value and span bits: from its span (asofKeyRanges; null: no valid key) when known, else a pass over it. */
function exactRange(key: Extract<NormalizedKey, { kind: 'f64' }>, span: [number, number] | null | undefined): { min: number; bits: number } {
  if (span === undefined) return asofExactRange(key.values, key.valid);
  return span === null ? exactRangeOf(0, 0) : exactRangeOf(span[0], span[1]);
}

/** The group ids as sort words, -1 (no group) as `groups` (past the last). */
function groupWords(ids: Int32Array, groups: number): Uint32Array {
  const gword = scratchWords(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i]!;
    gword[i] = g < 0 ? groups : g;
  }
  return gword;
}
