/**
 * A collected explode's columns, and a window's output columns, are built in pooled buffers
 * (src/memory/buffer-pool handOut):
 * a buffer goes back to the pool only once the consumer's result is collected, so a result the
 * caller still holds never changes, however many runs follow; and once let go, its memory
 * serves the next run instead of fresh pages.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, sum } from '../../src/index.js';
import { collect } from '../support/gc.js';

/** 20k rows of two lists of `width` elements beside an id and a label: ~2-3 MB exploded. */
function lists(rows: number, width: number, salt: number): A.Table {
  const offsets = Int32Array.from({ length: rows + 1 }, (_, i) => width * i);
  const ints = Int32Array.from({ length: width * rows }, (_, i) => (i * 31 + salt) % 977);
  const words = Array.from({ length: width * rows }, (_, i) => `w${(i + salt) % 101}`);
  const list = (child: A.Data) => A.makeVector(A.makeData({ type: new A.List(new A.Field('item', child.type, true)), length: rows, nullCount: 0, valueOffsets: offsets, child }));
  return new A.Table({
    id: A.makeVector(BigInt64Array.from({ length: rows }, (_, i) => BigInt(i * salt))),
    xs: list(A.makeData({ type: new A.Int32(), length: width * rows, data: ints })),
    label: A.vectorFromArray(Array.from({ length: rows }, (_, i) => `label-${(i + salt) % 13}`), new A.Utf8()),
    ys: list(A.vectorFromArray(words, new A.Utf8()).data[0]!),
  });
}

/** Every value of every column, as plain JS: what the caller sees. */
function snapshot(t: A.Table): unknown[][] {
  return t.schema.fields.map((f) => Array.from(t.getChild(f.name)!, (v) => (typeof v === 'bigint' ? v.toString() : v)));
}

const engines: Engine[] = [];
afterAll(async () => {
  for (const e of engines) await e.close();
});

describe('results built in pooled buffers', () => {
  for (const threads of [0, 2]) {
    it(`stay as they were while the caller holds them, through later runs (threads ${threads})`, async () => {
      const engine = new Engine({ threads });
      engines.push(engine);
      const kept = await engine.fromArrow(lists(20_000, 4, 1)).explode(['xs', 'ys']).collect();
      const before = snapshot(kept);
      expect(kept.numRows).toBe(80_000);
      for (let run = 2; run <= 5; run++) {
        const t = lists(20_000, 4, run);
        const out = await engine.fromArrow(t).explode(['xs', 'ys']).collect();
        expect(out.getChild('xs')!.get(5)).toBe((5 * 31 + run) % 977);
        // Let go and collected: its buffers return to the pool and the next run takes them.
        await collect();
      }
      expect(snapshot(kept)).toEqual(before);
    });
  }

  it('of a window (output columns for all rows, written in place) stay as they were through later runs', async () => {
    const engine = new Engine({ threads: 2 });
    engines.push(engine);
    const rows = 300_000;
    const table = (salt: number) =>
      new A.Table({
        k: A.makeVector(Int32Array.from({ length: rows }, (_, i) => (i * 7 + salt) % 1000)),
        v: A.makeVector(Int32Array.from({ length: rows }, (_, i) => (i * salt) % 1009)),
      });
    const windowOf = (salt: number) => engine.fromArrow(table(salt)).window({ partitionBy: 'k', orderBy: 'v', columns: { s: sum('v').rows(3), m: sum('v').rows(30) } }).collect();
    const kept = await windowOf(1);
    const before = snapshot(kept);
    for (let run = 2; run <= 5; run++) {
      const out = await windowOf(run);
      expect(out.numRows).toBe(rows);
      await collect();
    }
    expect(snapshot(kept)).toEqual(before);
  });

  it('come back to the pool once let go', async () => {
    const engine = new Engine({ threads: 2 });
    engines.push(engine);
    let out: A.Table | undefined = await engine.fromArrow(lists(40_000, 8, 7)).explode(['xs', 'ys']).collect();
    await collect();
    const held = engine.buffers.held;
    const bytes = out.getChild('xs')!.data.reduce((s, d) => s + d.values.byteLength, 0);
    out = undefined;
    await collect();
    // The xs column alone is 1.25 MB; the label, id and ys offsets' chunks come back with it.
    expect(engine.buffers.held - held).toBeGreaterThanOrEqual(bytes);
  });
});
