/**
 * Child process of test/engine/shared-release.test.ts: a window with large direct outputs (the
 * workers write the result's columns in shared memory), run three times on one engine; after
 * each run the result is dropped and the main thread collected, and the child prints, as JSON,
 * each run's output bytes, VmRSS with the result held and the lowest VmRSS seen in the next
 * `waitMs` (sampled every 20 ms), and the stderr lines the engine wrote.
 * Usage: node --import tsx shared-release-child.ts <rows> <waitMs>
 */
import * as A from 'apache-arrow';
import { readFileSync } from 'node:fs';
import { Engine, sum } from '../../src/index.js';
import { gc } from './gc.js';

const [rowsText, waitText] = process.argv.slice(2) as [string, string];
const rows = Number(rowsText);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

const k = new Int32Array(rows);
const v = new Int32Array(rows);
for (let i = 0; i < rows; i++) {
  k[i] = (i * 7919) % 1000;
  v[i] = i % 1009;
}
const table = new A.Table({ k: A.makeVector(k), v: A.makeVector(v) });
const columns = Object.fromEntries([2, 3, 5, 8, 13, 21, 34, 55].map((w) => [`s${w}`, sum('v').rows(w)]));

const engine = new Engine({ threads: 2 });
const runs: Array<{ outBytes: number; held: number; after: number }> = [];
try {
  for (let i = 0; i < 3; i++) {
    let out: A.Table | undefined = await engine.fromArrow(table).window({ partitionBy: 'k', orderBy: 'v', columns }).collect();
    const outBytes = out.batches.reduce((s, b) => s + b.data.children.slice(2).reduce((t, c) => t + c.values.byteLength, 0), 0);
    const held = rss();
    out = undefined;
    let after = Infinity;
    const t0 = performance.now();
    do {
      gc();
      await new Promise((r) => setTimeout(r, 20));
      after = Math.min(after, rss());
    } while (performance.now() - t0 < Number(waitText));
    runs.push({ outBytes, held, after });
  }
} finally {
  await engine.close();
}
process.stdout.write(JSON.stringify({ runs }));
