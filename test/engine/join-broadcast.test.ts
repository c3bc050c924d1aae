/**
 * The broadcast join (src/coordinator/exec-join-broadcast: inner, left, semi, anti with a small
 * right side) against a plain-JS expectation and against the partitioned join on the same data:
 * int64, int32, utf8 and two-column keys, NULL keys with nullsEqual on and off, duplicate right
 * keys, right sides given in many batches. Which path ran is read from RunStats.cpuMs; the
 * hand-offs to the partitioned join (a right side bigger than its share of the budget, found
 * while reading it; a key with more right rows than a slice's output allows) give the same rows.
 * Every run stays within its budget with no memory beyond its loans.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/index.js';

const L = 10_000;
const R = 15_000;

type How = 'inner' | 'left' | 'semi' | 'anti';

function batches<T extends Record<string, A.Vector>>(cols: (start: number, n: number) => T, rows: number, size: number): A.Table {
  const parts: A.RecordBatch[] = [];
  for (let at = 0; at < rows; at += size) parts.push(new A.Table(cols(at, Math.min(size, rows - at))).batches[0]!);
  return new A.Table(parts);
}

/** Left keys hit the right's in [0, 1.2 R / dup): some miss, every 50th is NULL. */
function leftTable(dup: number, rows = L): A.Table {
  return batches(
    (at, n) => {
      const ids = Array.from({ length: n }, (_, i) => at + i);
      const key = (i: number): number | null => (i % 50 === 7 ? null : (i * 7919) % Math.ceil((1.2 * R) / dup));
      return {
        id: A.makeVector(Int32Array.from(ids)),
        k: A.vectorFromArray(ids.map((i) => (key(i) === null ? null : BigInt(key(i)!))), new A.Int64()),
        k32: A.vectorFromArray(ids.map(key), new A.Int32()),
        s: A.vectorFromArray(ids.map((i) => (key(i) === null ? null : `s${key(i)}`)), new A.Utf8()),
        t: A.vectorFromArray(ids.map((i) => i % 3), new A.Int32()),
      };
    },
    rows,
    4096,
  );
}

/** Right keys: each of R / dup keys `dup` times (spread over the input), every 997th NULL. */
function rightTable(dup: number, batch = 1000): A.Table {
  return batches(
    (at, n) => {
      const ids = Array.from({ length: n }, (_, i) => at + i);
      const key = (i: number): number | null => (i % 997 === 3 ? null : i % Math.ceil(R / dup));
      return {
        k: A.vectorFromArray(ids.map((i) => (key(i) === null ? null : BigInt(key(i)!))), new A.Int64()),
        k32: A.vectorFromArray(ids.map(key), new A.Int32()),
        s: A.vectorFromArray(ids.map((i) => (key(i) === null ? null : `s${key(i)}`)), new A.Utf8()),
        t: A.vectorFromArray(ids.map((i) => (i * 5) % 3), new A.Int32()),
        w: A.makeVector(Float64Array.from(ids, (i) => i / 4)),
      };
    },
    R,
    batch,
  );
}

/** Each row's key as text (null: matches nothing), memoized per table, keys and NULL rule (the hows share them). */
const keyMemo = new Map<A.Table, Map<string, Array<string | null>>>();
function keysOf(t: A.Table, on: string[], nullsEqual: boolean): Array<string | null> {
  const memo = keyMemo.get(t) ?? new Map<string, Array<string | null>>();
  keyMemo.set(t, memo);
  const id = `${on.join(',')}|${nullsEqual}`;
  let keys = memo.get(id);
  if (!keys) {
    const cols = on.map((c) => t.getChild(c)!.toArray() as ArrayLike<unknown>);
    const valid = on.map((c) => t.getChild(c)!);
    keys = Array.from({ length: t.numRows }, (_, i) => {
      const parts = cols.map((col, k) => (valid[k]!.isValid(i) ? col[i] : null));
      if (!nullsEqual && parts.some((p) => p === null)) return null;
      return JSON.stringify(parts.map((p) => (typeof p === 'bigint' ? p.toString() : p)));
    });
    memo.set(id, keys);
  }
  return keys;
}

/** (left id, right w or null) per output row, in the promised order: left order, then right input order. */
function expected(left: A.Table, right: A.Table, on: string[], how: How, nullsEqual: boolean): Array<[number, number | null]> {
  const rightKeys = keysOf(right, on, nullsEqual);
  const leftKeys = keysOf(left, on, nullsEqual);
  const byKey = new Map<string, number[]>();
  rightKeys.forEach((k, j) => {
    if (k === null) return;
    const rows = byKey.get(k);
    if (rows) rows.push(j);
    else byKey.set(k, [j]);
  });
  const out: Array<[number, number | null]> = [];
  const w = right.getChild('w')!.toArray() as Float64Array;
  const ids = left.getChild('id')!.toArray() as Int32Array;
  for (let i = 0; i < left.numRows; i++) {
    const k = leftKeys[i]!;
    const m = k === null ? [] : (byKey.get(k) ?? []);
    const id = ids[i]!;
    if (how === 'semi' || how === 'anti') {
      if ((m.length > 0) === (how === 'semi')) out.push([id, null]);
    } else if (m.length === 0) {
      if (how === 'left') out.push([id, null]);
    } else for (const j of m) out.push([id, w[j]!]);
  }
  return out;
}

function pairsOf(t: A.Table, how: How): Array<[number, number | null]> {
  const id = t.getChild('id')!;
  const w = how === 'semi' || how === 'anti' ? null : t.getChild('w')!;
  return Array.from({ length: t.numRows }, (_, i) => [id.get(i) as number, w ? (w.get(i) as number | null) : null]);
}

const engines: Engine[] = [];
const engine = (threads: number, memoryBudget: string): Engine => {
  const e = new Engine({ threads, memoryBudget });
  engines.push(e);
  return e;
};
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

// Room for the str layout's table too (15k right rows: 32k slots of 32 bytes) within the build's quarter.
const roomy = engine(2, '24MiB');
const inline = engine(0, '24MiB');
const tight = engine(2, '2MiB');

const KEYS: Array<{ name: string; on: string[] }> = [
  { name: 'int64', on: ['k'] },
  { name: 'int32', on: ['k32'] },
  { name: 'utf8', on: ['s'] },
  { name: 'two keys', on: ['k', 't'] },
];

describe('broadcast join', () => {
  const left = leftTable(3);
  const right = rightTable(3);
  for (const { name, on } of KEYS) {
    for (const how of ['inner', 'left', 'semi', 'anti'] as How[]) {
      for (const nullsEqual of [false, true]) {
        it(`${how} on ${name}${nullsEqual ? ', NULLs equal' : ''}: the promised rows, as the partitioned join gives them`, async () => {
          const plan = (e: Engine) => e.fromArrow(left).join(e.fromArrow(right), { on, how, nullsEqual });
          const want = expected(left, right, on, how, nullsEqual);
          const broad = await plan(roomy).execute();
          expect(broad.stats.cpuMs.joinProbe).toBeGreaterThan(0);
          expect(broad.stats.cpuMs.join).toBeUndefined();
          expect(pairsOf(broad.table, how)).toEqual(want);
          expect(broad.stats.peakTrackedBytes).toBeLessThanOrEqual(16 * 2 ** 20);
          expect(broad.stats.overflowBytes).toBe(0);
          const part = await plan(tight).execute();
          expect(part.stats.cpuMs.joinProbe).toBeUndefined();
          expect(part.stats.cpuMs.join).toBeGreaterThan(0);
          expect(part.stats.peakTrackedBytes).toBeLessThanOrEqual(2 * 2 ** 20);
          expect(part.table.schema.fields.map(String)).toEqual(broad.table.schema.fields.map(String));
          for (const f of broad.table.schema.fields) expect(part.table.getChild(f.name)!.toArray()).toEqual(broad.table.getChild(f.name)!.toArray());
          const one = await plan(inline).execute();
          expect(pairsOf(one.table, how)).toEqual(want);
        });
      }
    }
  }

  it('a key with more right rows than a slice can hold goes to the partitioned join, same rows', async () => {
    const l = leftTable(100, 1000);
    const r = rightTable(100);
    const plan = (e: Engine) => e.fromArrow(l).join(e.fromArrow(r), { on: 'k', how: 'left' });
    const got = await plan(engine(2, '64MiB')).execute();
    expect(got.stats.cpuMs.joinBuild).toBeGreaterThan(0);
    expect(got.stats.cpuMs.joinProbe).toBeUndefined();
    expect(got.stats.cpuMs.join).toBeGreaterThan(0);
    expect(pairsOf(got.table, 'left')).toEqual(expected(l, r, ['k'], 'left', false));
  });

  it('a right side that outgrows its share while being read goes on to the partitioned join, same rows', async () => {
    const r = rightTable(3, 250);
    const mid = engine(2, '3MiB');
    const plan = (e: Engine) => e.fromArrow(left).join(e.fromArrow(r), { on: 's', how: 'inner' });
    const got = await plan(mid).execute();
    expect(got.stats.cpuMs.joinBuild).toBeUndefined();
    expect(got.stats.cpuMs.join).toBeGreaterThan(0);
    expect(got.stats.peakTrackedBytes).toBeLessThanOrEqual(3 * 2 ** 20);
    expect(pairsOf(got.table, 'inner')).toEqual(expected(left, r, ['s'], 'inner', false));
  });

  it('a right side of many one-row batches is copied once a column: its loan is the data, not a word a batch', async () => {
    // 32 int32 columns in 2,000 one-row batches (~0.5 MB): the copy's loan once grew by 64
    // bytes a column and batch (4 MB more here; 14,000 batches at 32 MiB were MEMORY_EXHAUSTED).
    const cols = (at: number, n: number): Record<string, A.Vector> => {
      const c: Record<string, A.Vector> = { k: A.makeVector(Int32Array.from({ length: n }, (_, i) => at + i)) };
      for (let j = 1; j < 32; j++) c[`c${j}`] = A.makeVector(Int32Array.from({ length: n }, (_, i) => at + i + j));
      return c;
    };
    const right = batches(cols, 2000, 1);
    const probe = batches((at, n) => ({ k: A.makeVector(Int32Array.from({ length: n }, (_, i) => 3 * (at + i))) }), 600, 600);
    const e = engine(2, '8MiB');
    const { table, stats } = await e.fromArrow(probe).join(e.fromArrow(right), { on: 'k' }).execute();
    // Broadcast: its unique dense int keys store the payload by key (joinRowStore), no table built.
    expect(stats.cpuMs.joinRowStore).toBeGreaterThan(0);
    expect(stats.cpuMs.joinBuild).toBeUndefined();
    expect(stats.peakTrackedBytes).toBeLessThan(2.5 * 2 ** 20);
    expect(table.numRows).toBe(600);
    expect(Array.from(table.getChild('c31')!.toArray() as Int32Array).every((v, i) => v === 3 * i + 31)).toBe(true);
  });

  it('an empty right side: inner and semi give no rows, left and anti every left row', async () => {
    const empty = rightTable(3).slice(0, 0);
    for (const how of ['inner', 'left', 'semi', 'anti'] as How[]) {
      const got = await roomy.fromArrow(left).join(roomy.fromArrow(empty), { on: 'k', how }).execute();
      expect(pairsOf(got.table, how)).toEqual(expected(left, empty, ['k'], how, false));
    }
  });
});
