/**
 * Child process of test/engine/shared-release.test.ts: a window with large direct outputs (the
 * workers write the result's columns in shared memory), run three times on one engine; after
 * each run the result is dropped and the main thread collected, and the child prints, as JSON,
 * each run's output bytes, VmRSS with the result held and the lowest VmRSS seen in the next
 * `waitMs` (sampled every 20 ms), and the stderr lines the engine wrote.
 * With a third argument `sort`, the job is a sort of three 8-byte columns instead (its tasks
 * build their outputs in shared memory too), and each run also reports VmHWM; with `explode`,
 * an explode of two lists of 8 elements a row (row-local tasks, their outputs in shared memory
 * when collected), and VmRSS before the first run.
 * Usage: node --import tsx shared-release-child.ts <rows> <waitMs> [sort|explode]
 */
import * as A from 'apache-arrow';
import { readFileSync } from 'node:fs';
import { Engine, sum } from '../../src/index.js';
import { gc } from './gc.js';

const [rowsText, waitText, job] = process.argv.slice(2) as [string, string, 'sort' | 'explode' | undefined];
const rows = Number(rowsText);
const status = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const rss = (): number => status('VmRSS');

const k = new Int32Array(rows);
const v = new Int32Array(rows);
for (let i = 0; i < rows; i++) {
  k[i] = (i * 7919) % 1000;
  v[i] = i % 1009;
}
const table = new A.Table({ k: A.makeVector(k), v: A.makeVector(v) });
const columns = Object.fromEntries([2, 3, 5, 8, 13, 21, 34, 55].map((w) => [`s${w}`, sum('v').rows(w)]));

const wide = new A.Table({
  k: A.makeVector(Float64Array.from(k, (x, i) => x * 1e6 + ((i * 104729) % 999983))),
  a: A.makeVector(Float64Array.from(v)),
  b: A.makeVector(BigInt64Array.from(k, (x) => BigInt(x))),
});

/** Two lists of 8 elements a row (int32 and float64) beside an int64 id. */
function listTable(): A.Table {
  const offsets = Int32Array.from({ length: rows + 1 }, (_, i) => 8 * i);
  const ints = Int32Array.from({ length: 8 * rows }, (_, i) => i % 977);
  const floats = Float64Array.from({ length: 8 * rows }, (_, i) => i / 8);
  const list = (child: A.Data, type: A.DataType) => A.makeVector(A.makeData({ type: new A.List(new A.Field('item', type, false)), length: rows, nullCount: 0, valueOffsets: offsets, child }));
  return new A.Table({
    id: A.makeVector(BigInt64Array.from({ length: rows }, (_, i) => BigInt(i))),
    xs: list(A.makeData({ type: new A.Int32(), length: 8 * rows, data: ints }), new A.Int32()),
    ys: list(A.makeData({ type: new A.Float64(), length: 8 * rows, data: floats }), new A.Float64()),
  });
}
const lists = job === 'explode' ? listTable() : null;

const engine = new Engine({ threads: 2 });
const before = status('VmRSS');
const runs: Array<{ outBytes: number; held: number; after: number; hwm: number }> = [];
try {
  for (let i = 0; i < 3; i++) {
    let out: A.Table | undefined =
      job === 'sort'
        ? await engine.fromArrow(wide).sort('k').collect()
        : job === 'explode'
          ? await engine.fromArrow(lists!).explode(['xs', 'ys']).collect()
          : await engine.fromArrow(table).window({ partitionBy: 'k', orderBy: 'v', columns }).collect();
    const skip = job === 'sort' || job === 'explode' ? 0 : 2;
    const outBytes = out.batches.reduce((s, b) => s + b.data.children.slice(skip).reduce((t, c) => t + c.values.byteLength, 0), 0);
    const held = rss();
    out = undefined;
    let after = Infinity;
    const t0 = performance.now();
    do {
      gc();
      await new Promise((r) => setTimeout(r, 20));
      after = Math.min(after, rss());
    } while (performance.now() - t0 < Number(waitText));
    runs.push({ outBytes, held, after, hwm: status('VmHWM') });
  }
} finally {
  await engine.close();
}
process.stdout.write(JSON.stringify({ runs, before }));
