// Probing the broadcast join table (src/worker/join-table) as the join does, and the naive
// answer to compare with: each probe row's build rows in build order.
import { joinSlotWords, joinTableSlots, type JoinTableLayout } from '../../src/ops/join-table-layout.js';
import { localAlloc } from '../../src/columns/arena.js';
import type { KeyColumn } from '../../src/types/keys.js';
import { buildJoinTable, probeJoinTable } from '../../src/worker/join-table.js';

export function strings(vals: Array<string | null>): KeyColumn {
  const enc = new TextEncoder();
  const parts = vals.map((v) => enc.encode(v ?? ''));
  const offsets = new Int32Array(vals.length + 1);
  parts.forEach((b, i) => (offsets[i + 1] = offsets[i]! + b.length));
  const values = new Uint8Array(offsets[vals.length]!);
  parts.forEach((b, i) => values.set(b, offsets[i]!));
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  return { type: { kind: 'utf8' }, length: vals.length, values, offsets, valid };
}

/** Per probe row: its build rows in build order, through the table. */
export function viaTable(build: KeyColumn, probe: KeyColumn, nullsEqual: boolean, layout: JoinTableLayout = 'int'): { rows: number[][]; direct: boolean } {
  const n = build.length;
  const slots = new Int32Array(joinSlotWords(layout) * joinTableSlots(n));
  const order = new Uint32Array(n);
  const built = buildJoinTable([build], n, nullsEqual, layout, { slots, order }, new Int32Array(n), new Uint32Array(n), localAlloc);
  const np = probe.length;
  // Garbage first: the probe must set run and len of every row (the probe task does not clear them).
  const run = new Int32Array(np).fill(-12345);
  const len = new Int32Array(np).fill(77);
  probeJoinTable([build], { slots, layout, ...built }, [probe], np, nullsEqual, null, run, len, new Uint32Array(np), localAlloc);
  const rows = Array.from({ length: np }, (_, i) => (len[i] === 1 ? [run[i]!] : Array.from(order.subarray(run[i]!, run[i]! + len[i]!))));
  return { rows, direct: built.directSpan > 0 };
}

export function naive<T extends bigint | string>(build: Array<T | null>, probe: Array<T | null>, nullsEqual: boolean): number[][] {
  const by = new Map<string, number[]>();
  build.forEach((v, j) => {
    if (v === null && !nullsEqual) return;
    const k = String(v);
    by.set(k, [...(by.get(k) ?? []), j]);
  });
  return probe.map((v) => (v === null && !nullsEqual ? [] : (by.get(String(v)) ?? [])));
}

