import { Engine } from '/work/main/dist/index.js';
import { trades, quotes } from '/work/main/bench/data.ts';
const n = Number(process.argv[2] ?? 100000);
const threads = Number(process.argv[3] ?? 2);
const T = trades({ rows: n, symbols: 1000, seed: 1 } as never), Q = quotes({ rows: n, symbols: 1000, seed: 2 } as never);
const engine = new Engine({ threads });
for (const direction of ['backward', 'nearest'] as const) {
  for (let k = 0; k < 2; k++) {
    const t0 = performance.now();
    const r = await engine.fromArrow(T).asofJoin(engine.fromArrow(Q), { on: 'ts', by: 'sym', direction }).execute();
    console.log(direction, ((performance.now() - t0) / 1000).toFixed(3), JSON.stringify(Object.fromEntries(Object.entries(r.stats.phases).map(([k, v]) => [k, Math.round(v as number)]))), r.table.numRows);
  }
}
await engine.close();
