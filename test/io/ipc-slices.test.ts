/**
 * Arrow IPC record batches bigger than the read share are read in row slices straight from the
 * file (uncompressed, flat columns) or decoded whole and handed on in slices (compressed, lists):
 * the same rows, slices within one record batch and on 64-row starts, only the needed bytes held;
 * a window over such a file reads the slices again for its replay and gives the in-memory result,
 * and a file that changes in between is INPUT_CHANGED.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchBytes } from '../../src/columns/shared.js';
import { Engine, InputError, sum, type DataFrame } from '../../src/index.js';
import { readIpcBatches, type BatchSlicing } from '../../src/io/ipc.js';
import { rng } from '../support/random.js';
import { valuesDigest } from '../support/tables.js';
import { rejection } from '../support/rejection.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-ipc-slices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** (user, ts, v int32 with NULLs, big int64, f float64, ok bool with NULLs, note utf8 with NULLs and empties). */
function table(rows: number, seed: number): A.Table {
  const r = rng(seed);
  const user = new Int32Array(rows);
  const ts = new Float64Array(rows);
  const v: Array<number | null> = [];
  const big = new BigInt64Array(rows);
  const ok: Array<boolean | null> = [];
  const note: Array<string | null> = [];
  for (let i = 0; i < rows; i++) {
    user[i] = Math.floor(r() * 200);
    ts[i] = Math.floor(r() * 1e7);
    v.push(r() < 0.07 ? null : Math.floor(r() * 1000) - 500);
    big[i] = BigInt(Math.floor(r() * 2 ** 40)) * 1000n;
    ok.push(r() < 0.05 ? null : r() < 0.5);
    const k = Math.floor(r() * 20);
    note.push(r() < 0.1 ? null : k === 0 ? '' : `n${'x'.repeat(k)}${i}`);
  }
  return new A.Table({
    user: A.makeVector(user),
    ts: A.makeVector(ts),
    v: A.vectorFromArray(v, new A.Int32()),
    big: A.makeVector(big),
    ok: A.vectorFromArray(ok, new A.Bool()),
    note: A.vectorFromArray(note, new A.Utf8()),
  });
}

/** `t` in record batches of these row counts (in turn). */
function batched(t: A.Table, sizes: number[]): A.Table {
  const out: A.RecordBatch[] = [];
  for (let s = 0, k = 0; s < t.numRows; k++) {
    const n = Math.min(sizes[k % sizes.length]!, t.numRows - s);
    out.push(...t.slice(s, s + n).batches);
    s += n;
  }
  return new A.Table(t.schema, out);
}

/** valuesDigest, with list columns as JSON arrays (valuesDigest has no lists). */
function digestOf(t: A.Table): string {
  if (!t.schema.fields.some((f) => f.type.typeId === A.Type.List)) return valuesDigest(t);
  return JSON.stringify([...t.getChild('l')!].map((x: A.Vector | null) => (x === null ? null : [...x])).concat([...t.getChild('user')!]));
}

async function readAll(path: string, slicing: BatchSlicing): Promise<A.RecordBatch[]> {
  const out: A.RecordBatch[] = [];
  for await (const b of readIpcBatches(path, { slicing })) out.push(b);
  return out;
}

const DATA = table(30_000, 11);
const SIZES = [20_000, 130, 9_870];

describe('reading big Arrow IPC batches in slices', () => {
  const plain = join(dir, 'plain.arrow');
  beforeAll(() => writeFileSync(plain, A.tableToIPC(batched(DATA, SIZES), 'file')));

  it('reads uncompressed batches in 64-row-aligned slices within each record batch, the same rows', async () => {
    const wholes: number[] = [];
    const maxBytes = 40_000;
    const got = await readAll(plain, { maxBytes, whole: (b) => wholes.push(b) });
    expect(wholes).toEqual([]); // nothing decoded whole
    expect(valuesDigest(new A.Table(got))).toBe(valuesDigest(DATA));
    // slices never cross a record batch: their starts restart at each batch boundary
    let at = 0;
    let batchEnd = 0;
    let k = 0;
    for (const b of got) {
      if (at === batchEnd) batchEnd += SIZES[k++]!;
      expect(at + b.numRows).toBeLessThanOrEqual(batchEnd);
      const start = at - (batchEnd - SIZES[k - 1]!);
      expect(start % 64).toBe(0);
      // about maxBytes at most (average row width; strings vary)
      expect(batchBytes(b)).toBeLessThan(2 * maxBytes);
      at += b.numRows;
    }
    expect(at).toBe(DATA.numRows);
    expect(got.length).toBeGreaterThan(10);
    // the 130-row batch is small: read whole, as it is
    expect(got.some((b) => b.numRows === 130)).toBe(true);
  });

  it('slices hold only their own bytes, with null counts of their own rows', async () => {
    const got = await readAll(plain, { maxBytes: 40_000, whole: () => {} });
    const first = got[0]!;
    const rows = first.numRows;
    expect(batchBytes(first)).toBeLessThan(batchBytes(DATA.slice(0, 20_000).batches[0]!) / 4);
    const v = first.getChild('v')!;
    let nulls = 0;
    for (let i = 0; i < rows; i++) if (v.get(i) === null) nulls++;
    expect(v.nullCount).toBe(nulls);
    expect(nulls).toBeGreaterThan(0);
    // utf8 offsets rebased to the slice's own bytes
    const note = first.data.children[5]!;
    expect(note.valueOffsets[0]).toBe(0);
    expect(note.values.byteLength).toBe(note.valueOffsets[rows]);
  });

  it('the same file and limit give the same slices twice', async () => {
    const s = { maxBytes: 25_000, whole: () => {} };
    const a = (await readAll(plain, s)).map((b) => b.numRows);
    const b = (await readAll(plain, s)).map((x) => x.numRows);
    expect(b).toEqual(a);
  });

  it('decodes compressed batches whole, counted, and hands them on in slices', async () => {
    const lz4 = join(dir, 'lz4.arrow');
    const e = new Engine({ threads: 0 });
    try {
      await e.fromArrow(batched(DATA, [20_000, 10_000])).writeIpc(lz4, { compression: 'lz4' });
    } finally {
      await e.close();
    }
    const withList = join(dir, 'list.arrow');
    const lists = A.vectorFromArray(
      Array.from({ length: DATA.numRows }, (_, i) => (i % 13 === 0 ? null : [i, i + 1])),
      new A.List(new A.Field('item', new A.Int32(), true)),
    );
    const listTable = new A.Table({ user: DATA.getChild('user')!, l: lists });
    writeFileSync(withList, A.tableToIPC(batched(listTable, [30_000]), 'file'));
    for (const [path, want] of [[lz4, DATA]] as const) {
      const calls: number[] = [];
      const got = await readAll(path, { maxBytes: 40_000, whole: (b) => calls.push(b) });
      expect(digestOf(new A.Table(got))).toBe(digestOf(want));
      expect(got.every((b) => b.numRows < 30_000)).toBe(true);
      // each whole batch: its bytes before the first slice, 0 after the last
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.length % 2).toBe(0);
      for (let i = 0; i < calls.length; i += 2) {
        expect(calls[i]).toBeGreaterThan(40_000);
        expect(calls[i + 1]).toBe(0);
      }
    }
    // A list column is sliced from the file too: nothing decoded whole.
    const calls: number[] = [];
    const got = await readAll(withList, { maxBytes: 40_000, whole: (b) => calls.push(b) });
    expect(digestOf(new A.Table(got))).toBe(digestOf(listTable));
    expect(got.length).toBeGreaterThan(1);
    expect(calls).toEqual([]);
  });

  it('slices nested columns (lists of strings, lists of lists, fixed-size lists, structs) with NULLs at any depth: the rows of a whole decode', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 2000, max: 60_000 }), async (rows, seed, maxBytes) => {
        const r = rng(seed);
        const maybe = <T>(p: number, v: () => T): T | null => (r() < p ? null : v());
        const str = () => maybe(0.1, () => 'x'.repeat(Math.floor(r() * 6)) + Math.floor(r() * 100));
        const strs = Array.from({ length: rows }, () => maybe(0.1, () => Array.from({ length: Math.floor(r() * 5) }, str)));
        const nested = Array.from({ length: rows }, () => maybe(0.1, () => Array.from({ length: Math.floor(r() * 3) }, () => maybe(0.2, () => Array.from({ length: Math.floor(r() * 4) }, () => maybe(0.2, () => Math.floor(r() * 1000)))))));
        const pairs = Array.from({ length: rows }, () => maybe(0.1, () => [maybe(0.2, () => r() * 10), maybe(0.2, () => r() * 10)]));
        const recs = Array.from({ length: rows }, () => maybe(0.1, () => ({ a: maybe(0.2, () => Math.floor(r() * 50)), b: str(), ok: maybe(0.2, () => r() < 0.5) })));
        const t = new A.Table({
          id: A.makeVector(Int32Array.from({ length: rows }, (_, i) => i)),
          strs: A.vectorFromArray(strs, new A.List(new A.Field('item', new A.Utf8(), true))),
          nested: A.vectorFromArray(nested, new A.List(new A.Field('item', new A.List(new A.Field('item', new A.Int32(), true)), true))),
          pairs: A.vectorFromArray(pairs, new A.FixedSizeList(2, new A.Field('item', new A.Float64(), true))),
          recs: A.vectorFromArray(recs, new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true), new A.Field('ok', new A.Bool(), true)])),
        });
        const path = join(dir, `nested-${seed}.arrow`);
        writeFileSync(path, A.tableToIPC(batched(t, [Math.max(1, Math.floor(rows / 2)), rows]), 'file'));
        const calls: number[] = [];
        const got = await readAll(path, { maxBytes, whole: (b) => calls.push(b) });
        expect(calls).toEqual([]);
        expect(got.reduce((n, b) => n + b.numRows, 0)).toBe(rows);
        expect(JSON.stringify(rowsJs(new A.Table(got)))).toBe(JSON.stringify(rowsJs(t)));
        rmSync(path);
      }),
      { numRuns: 25 },
    );
  });
});

/** Every row as plain JSON values (lists as arrays, structs as objects). */
function rowsJs(t: A.Table): unknown[] {
  const js = (v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    if (v instanceof A.Vector) return [...v].map(js);
    if (typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      const o = (v as { toJSON(): Record<string, unknown> }).toJSON();
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, js(x)]));
    }
    return v;
  };
  return [...t].map((row) => js(row));
}

describe('a window over big Arrow IPC batches at a small budget', () => {
  const path = join(dir, 'window.arrow');
  const ROWS = 120_000;
  const BIG = table(ROWS, 5);
  beforeAll(() => writeFileSync(path, A.tableToIPC(batched(BIG, [70_000, 50_000]), 'file')));
  const rolled = (df: DataFrame): DataFrame =>
    df.window({ partitionBy: 'user', orderBy: 'ts', columns: { s3: sum('v').rows(2), c: sum('big').rows(5, 5) } });

  let expected: string;
  let expectedSome: string;
  beforeAll(async () => {
    const e = new Engine({ threads: 0 });
    try {
      expected = valuesDigest(await rolled(e.fromArrow(BIG)).collect());
      expectedSome = valuesDigest(await rolled(e.fromArrow(BIG).select('user', 'ts', 'v', 'big')).collect());
    } finally {
      await e.close();
    }
  });

  it('reads the slices again for the replay: the in-memory result, within the budget, no overflow', async () => {
    for (const [threads, budget] of [
      [1, '6MiB'],
      [2, '8MiB'],
    ] as const) {
      const e = new Engine({ threads, memoryBudget: budget });
      try {
        const run = await rolled(e.readIpc(path)).execute();
        expect(valuesDigest(run.table)).toBe(expected);
        expect(run.stats.overflowBytes).toBe(0);
        expect(run.stats.peakTrackedBytes).toBeLessThanOrEqual(e.budget.limit);
        // the input is read again, not kept: less spilled than the input's size
        expect(run.stats.spilledBytes).toBeLessThan(batchBytes(BIG.batches[0]!));
        const some = await rolled(e.readIpc(path).select('user', 'ts', 'v', 'big')).collect();
        expect(valuesDigest(some)).toBe(expectedSome);
        expect(e.budget.used).toBe(0);
      } finally {
        await e.close();
      }
    }
  });

  it('a file that changes between the two reads is INPUT_CHANGED', async () => {
    const changing = join(dir, 'changing.arrow');
    writeFileSync(changing, A.tableToIPC(batched(BIG, [70_000, 50_000]), 'file'));
    let rewritten = false;
    const e = new Engine({
      threads: 1,
      memoryBudget: '6MiB',
      onProgress: (p) => {
        if (p.phase === 'kernel' && !rewritten) {
          rewritten = true;
          writeFileSync(changing, A.tableToIPC(batched(BIG.slice(0, 100_000), [70_000, 30_000]), 'file'));
        }
      },
    });
    try {
      const err = await rejection(rolled(e.readIpc(changing)).collect());
      expect(rewritten).toBe(true);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe('INPUT_CHANGED');
      expect(e.budget.used).toBe(0);
    } finally {
      await e.close();
    }
  });
});
