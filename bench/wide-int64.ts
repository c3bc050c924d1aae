/**
 * Paths that once took a BigInt per value (issue 9, item 3), timed inline (threads: 0) on 1M
 * rows of ns timestamps ~1.7e18 spread over a year (span > 2^52 ns): window RANGE frames,
 * ASOF nearest with a tolerance, int64 arithmetic in an expression, timestamps written to CSV.
 *
 *   npm run build && npx tsx bench/wide-int64.ts [rows] [--against other/dist/index.js] [--reps N]
 *
 * Prints the median of N runs (default 3) after a warm-up. With --against, another build (e.g.
 * an older commit's dist) runs the same cases in the same process, alternating run by run, so
 * both see the same machine load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeData, makeVector, Table, TimestampNanosecond, Int64, Float64 } from 'apache-arrow';

type Sl = {
  Engine: new (o: { threads: number }) => {
    fromArrow(t: unknown): any;
    close(): Promise<void>;
  };
  sum(c: string): any;
  col(c: string): any;
};
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const against = flag('--against');
const reps = Number(flag('--reps') ?? 3);
const B = (await import(new URL('../dist/index.js', import.meta.url).href)) as Sl;
const A = against === undefined ? null : ((await import(new URL(against, `file://${process.cwd()}/`).href)) as Sl);

const n = Number(args[0] ?? 1_000_000);
const BASE = 1_700_000_000_000_000_000n;
const YEAR_NS = 365n * 86_400n * 1_000_000_000n;
function sortedTimes(count: number, seed: number): BigInt64Array {
  const out = new BigInt64Array(count);
  let s = seed >>> 0;
  const step = YEAR_NS / BigInt(count);
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = BASE + step * BigInt(i) + BigInt(s % 1_000_000);
  }
  return out;
}
const ts = sortedTimes(n, 1);
const ts2 = sortedTimes(n, 2);
const val = new Float64Array(n).map((_, i) => i % 97);
const ints = new BigInt64Array(n).map((_, i) => BigInt(i) * 7_919_000_000_000n - 4_000_000_000_000_000_000n);
const left = new Table({ t: makeVector(makeData({ type: new TimestampNanosecond(), length: n, data: ts })), v: makeVector(makeData({ type: new Float64(), length: n, data: val })), k: makeVector(makeData({ type: new Int64(), length: n, data: ints })) });
const right = new Table({ t2: makeVector(makeData({ type: new TimestampNanosecond(), length: n, data: ts2 })), w: makeVector(makeData({ type: new Float64(), length: n, data: val })) });

const dir = mkdtempSync(join(tmpdir(), 'wide-int64-'));
function cases(sl: Sl, engine: any): Record<string, () => Promise<unknown>> {
  return {
    'window RANGE 1d over ns timestamps': () => engine.fromArrow(left).window({ orderBy: 't', columns: { s: sl.sum('v').range('1d', 0) } }).collect(),
    'asof nearest on ns timestamps, tolerance 1h': () => engine.fromArrow(left).asofJoin(engine.fromArrow(right), { on: ['t', 't2'], direction: 'nearest', tolerance: '1h' }).collect(),
    'int64 arithmetic k * 3 + k - 5': () => engine.fromArrow(left).select(sl.col('k').mul(3).add(sl.col('k')).sub(5).alias('x')).collect(),
    'CSV of ns timestamps': () => engine.fromArrow(left).select(sl.col('t')).writeCsv(join(dir, 'out.csv')),
  };
}
const eb = new B.Engine({ threads: 0 });
const ea = A === null ? null : new A.Engine({ threads: 0 });
const cb = cases(B, eb);
const ca = A === null ? null : cases(A, ea);
const med = (t: number[]) => [...t].sort((x, y) => x - y)[t.length >> 1]! / 1000;
const list = (t: number[]) => t.map((x) => (x / 1000).toFixed(3)).join(' / ');
try {
  for (const name of Object.keys(cb)) {
    await cb[name]!(); // warm-up
    if (ca) await ca[name]!();
    const ta: number[] = [];
    const tb: number[] = [];
    for (let r = 0; r < reps; r++) {
      if (ca) {
        const t0 = performance.now();
        await ca[name]!();
        ta.push(performance.now() - t0);
      }
      const t0 = performance.now();
      await cb[name]!();
      tb.push(performance.now() - t0);
    }
    const other = ca ? `  other ${med(ta).toFixed(3)} s (${list(ta)})` : '';
    console.log(`${name.padEnd(46)} ${med(tb).toFixed(3)} s (${list(tb)})${other}`);
  }
} finally {
  await eb.close();
  if (ea) await ea.close();
  rmSync(dir, { recursive: true, force: true });
}
