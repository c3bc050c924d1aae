/**
 * ASOF task, run in a worker for one partition: both sides' rows of the partition →
 * shared group ids for the `by` keys (right side builds, left probes) → each side sorted ONCE
 * by (group, key, row id) → the pure kernel (src/ops/asof-join) → per left row the global row
 * id of its right match, written in place into the shared `matches` array.
 * Rows that can never match (NULL by values without nullsEqual, by values absent on the right)
 * are sorted past the last group and simply keep -1.
 * A residual condition is evaluated vectorized over each round of candidate pairs: the columns
 * it reads are gathered for those pairs and the bound expression is evaluated on them.
 */
import type * as A from 'apache-arrow';
import { gatherData } from '../columns/gather.js';
import { toKeyColumn, viewOf } from '../columns/shared.js';
import type { BoundExpr } from '../expr/bind.js';
import { evaluatePredicate } from '../expr/evaluate.js';
import { asofMatch } from '../ops/asof-join.js';
import {
  asofKeyBase,
  asofSortWords,
  normalizeAsofKey,
  permuteAsofKey,
  type AsofKeyPlan,
  type NormalizedKey,
  type NormalizedTolerance,
} from '../ops/asof-keys.js';
import type { KeyColumn } from '../types/keys.js';
import { encodeSortKey } from './sort-keys.js';
import type { AsofTask } from '../types/tasks.js';
import { groupStartsOf, matchGroupIds } from './group-ids.js';
import { loadPartition } from './partition-input.js';
import { resetScratch, scratchAlloc } from './scratch.js';
import { argsortWords } from './sort.js';

/** Plain settings the coordinator derives from ResolvedAsof (see exec-asof.ts). */
export interface AsofTaskSpec {
  leftBy: number[];
  rightBy: number[];
  leftOn: number;
  rightOn: number;
  key: AsofKeyPlan;
  direction: 'backward' | 'forward' | 'nearest';
  tolerance: NormalizedTolerance | null;
  allowExactMatches: boolean;
  nullsEqual: boolean;
  /** Bound against a "pair schema": condition columns gathered from left/right routed columns. */
  condition: BoundExpr | null;
  /** For each pair-schema column: which side's routed column supplies it. */
  conditionColumns: Array<{ side: 'left' | 'right'; pos: number }>;
}

interface SortedSide {
  n: number; // rows that can match, sorted first
  perm: Uint32Array;
  groupStarts: Uint32Array;
}

export async function runAsofTask(task: AsofTask): Promise<{ rows: number; rightRows: number }> {
  resetScratch();
  const spec = task.spec as AsofTaskSpec;
  const [left, right] = await Promise.all([loadPartition(task.left), loadPartition(task.right)]);
  const lk = left.columns.map(toKeyColumn);
  const rk = right.columns.map(toKeyColumn);

  const { buildIds, probeIds, groups } = matchGroupIds(
    spec.rightBy.map((i) => rk[i]!),
    spec.leftBy.map((i) => lk[i]!),
    right.n,
    left.n,
    spec.nullsEqual,
  );
  // one common base for both sides keeps large integer/temporal keys (e.g. ns timestamps) in exact doubles
  const base = asofKeyBase([lk[spec.leftOn]!, rk[spec.rightOn]!], spec.key);
  const lkey = normalizeAsofKey(lk[spec.leftOn]!, spec.key, base);
  const rkey = normalizeAsofKey(rk[spec.rightOn]!, spec.key, base);
  const ls = sortSide(probeIds, groups, sortWords(lkey, lk[spec.leftOn]!));
  const rs = sortSide(buildIds, groups, sortWords(rkey, rk[spec.rightOn]!));

  let checkPairs: ((lp: Int32Array, rp: Int32Array, count: number) => Uint8Array) | undefined;
  if (spec.condition) {
    const condition = spec.condition;
    checkPairs = (lp, rp, count) => {
      const li = new Int32Array(count);
      const ri = new Int32Array(count);
      for (let k = 0; k < count; k++) {
        li[k] = ls.perm[lp[k]!]!;
        ri[k] = rs.perm[rp[k]!]!;
      }
      const cols: A.Data[] = spec.conditionColumns.map((c) =>
        c.side === 'left' ? gatherData(left.columns[c.pos]!, li, count, scratchAlloc as never) : gatherData(right.columns[c.pos]!, ri, count, scratchAlloc as never),
      );
      return evaluatePredicate(condition, cols, count);
    };
  }

  const match = asofMatch({
    left: { n: ls.n, groupStarts: ls.groupStarts, key: permuteAsofKey(lkey, ls.perm.subarray(0, ls.n)) },
    right: { n: rs.n, groupStarts: rs.groupStarts, key: permuteAsofKey(rkey, rs.perm.subarray(0, rs.n)) },
    direction: spec.direction,
    tolerance: spec.tolerance,
    allowExactMatches: spec.allowExactMatches,
    checkPairs,
  });

  const matches = viewOf(Int32Array, task.matches);
  for (let i = 0; i < ls.n; i++) {
    const m = match[i]!;
    matches[left.rowIds[ls.perm[i]!]!] = m < 0 ? -1 : right.rowIds[rs.perm[m]!]!;
  }
  return { rows: left.n, rightRows: right.n };
}

/**
 * A side's key as radix-sort words. Strings are ranked by the worker's key encoder, which sorts
 * only the distinct values (asofSortWords ranks every row with a comparator).
 */
function sortWords(key: NormalizedKey, raw: KeyColumn): Uint32Array[] {
  return key.kind === 'utf8' ? encodeSortKey(raw, { descending: false, nullsFirst: true }) : asofSortWords(key);
}

/**
 * Sorts one side by (group id, key words); rows with group -1 go last and are cut off.
 * Stable, so equal keys stay in row-id order.
 */
function sortSide(ids: Int32Array, groups: number, keyWords: Uint32Array[]): SortedSide {
  const n = ids.length;
  const gword = new Uint32Array(n);
  let matchable = 0;
  for (let i = 0; i < n; i++) {
    const g = ids[i]!;
    if (g < 0) gword[i] = groups;
    else {
      gword[i] = g;
      matchable++;
    }
  }
  const perm = argsortWords([gword, ...keyWords], n);
  return { n: matchable, perm, groupStarts: groupStartsOf(ids, groups) };
}
