import pl from 'nodejs-polars';
import { servingLog } from './data.js';
import { toPolars, windowQuery } from './peers/polars.js';
const rows = Number(process.argv[2] ?? 10_000_000);
const df = toPolars(servingLog({ rows, users: 100_000, seed: 1 }));
for (let i = 0; i < 2; i++) {
  let c0 = process.cpuUsage(); let t0 = performance.now();
  const s = df.sort(['user_id', 'create_ts']);
  let c = process.cpuUsage(c0); console.log('sort', (performance.now() - t0).toFixed(0), ((c.user + c.system) / 1000).toFixed(0));
  c0 = process.cpuUsage(); t0 = performance.now();
  const r = s.withColumns(...[3, 7, 30, 90, 180].map((w) => pl.col('tokens').rollingSum({ windowSize: w, minPeriods: 1 }).over('user_id').alias(`t${w}`)));
  c = process.cpuUsage(c0); console.log('over', (performance.now() - t0).toFixed(0), ((c.user + c.system) / 1000).toFixed(0), r.height);
  c0 = process.cpuUsage(); t0 = performance.now();
  const r2 = windowQuery(df);
  c = process.cpuUsage(c0); console.log('whole', (performance.now() - t0).toFixed(0), ((c.user + c.system) / 1000).toFixed(0), r2.height);
}
