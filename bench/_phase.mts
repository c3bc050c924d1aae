import { Engine, sum } from '/work/main/dist/index.js';
import { servingLog } from '/work/main/bench/data.ts';
const rows = Number(process.argv[2] ?? 10_000_000);
const threads = Number(process.argv[3] ?? 2);
const t = servingLog({ rows, users: 100_000, seed: 1 });
const engine = new Engine({ threads });
const cols = { t3: sum('tokens').rows(2), t7: sum('tokens').rows(6), t30: sum('tokens').rows(29), t90: sum('tokens').rows(89), t180: sum('tokens').rows(179) };
for (let k = 0; k < 4; k++) {
  const t0 = performance.now();
  const r = await engine.fromArrow(t).window({ partitionBy: 'user_id', orderBy: 'create_ts', columns: cols }).execute();
  console.log(((performance.now() - t0) / 1000).toFixed(3), JSON.stringify(Object.fromEntries(Object.entries(r.stats.phases).map(([k, v]) => [k, Math.round(v)]))));
}
await engine.close();
