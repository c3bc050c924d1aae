/**
 * Paths that once took a BigInt per value (issue 9, item 3), timed inline (threads: 0) on 1M
 * rows of ns timestamps ~1.7e18 spread over a year (span > 2^52 ns): window RANGE frames,
 * ASOF nearest with a tolerance, int64 arithmetic in an expression, timestamps written to CSV.
 * Run: npm run build && npx tsx bench/wide-int64.ts [rows]. Prints medians of 3 runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeData, makeVector, Table, TimestampNanosecond, Int64, Float64 } from 'apache-arrow';

const dist = new URL('../dist/index.js', import.meta.url).href;
const sl = (await import(dist)) as {
  Engine: new (o: { threads: number }) => {
    fromArrow(t: unknown): any;
    close(): Promise<void>;
  };
  sum(c: string): any;
  col(c: string): any;
};

const n = Number(process.argv[2] ?? 1_000_000);
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

const engine = new sl.Engine({ threads: 0 });
const dir = mkdtempSync(join(tmpdir(), 'wide-int64-'));
const cases: Record<string, () => Promise<unknown>> = {
  'window RANGE 1d over ns timestamps': () => engine.fromArrow(left).window({ orderBy: 't', columns: { s: sl.sum('v').range('1d', 0) } }).collect(),
  'asof nearest on ns timestamps, tolerance 1h': () => engine.fromArrow(left).asofJoin(engine.fromArrow(right), { on: ['t', 't2'], direction: 'nearest', tolerance: '1h' }).collect(),
  'int64 arithmetic k * 3 + k - 5': () => engine.fromArrow(left).select(sl.col('k').mul(3).add(sl.col('k')).sub(5).alias('x')).collect(),
  'CSV of ns timestamps': () => engine.fromArrow(left).select(sl.col('t')).writeCsv(join(dir, 'out.csv')),
};
try {
  for (const [name, run] of Object.entries(cases)) {
    await run(); // warm-up
    const times: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(48)} ${(times[1]! / 1000).toFixed(3)} s  (${times.map((t) => (t / 1000).toFixed(3)).join(' / ')})`);
  }
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
