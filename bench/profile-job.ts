/**
 * One benchmark job, run once, for profiling (scripts/profile.mjs starts it under
 * `node --cpu-prof` or 0x). usage: node --import tsx bench/profile-job.ts window|asof|explode
 * [--rows N] [--threads T]
 */
import { orders, quotes, servingLog, trades } from './data.js';
import { parseArgs } from './harness.js';
import { loadSluice } from './sluice.js';

const { command, args } = parseArgs(process.argv.slice(2));
const s = await loadSluice();
const engine = new s.Engine({ threads: args.threads });
let rowsOut = 0;
if (command === 'window' || command === 'all') {
  const table = servingLog({ rows: args.rows ?? 10_000_000, users: 100_000, seed: 1 });
  const t1 = performance.now();
  const out = await engine.fromArrow(table).window({
    partitionBy: 'user_id', orderBy: 'create_ts',
    columns: Object.fromEntries([3, 7, 30, 90, 180].map((w) => [`tokens_${w}`, s.sum('tokens').rows(w - 1)])),
  }).collect();
  rowsOut = out.numRows;
  process.stderr.write(`window: ${rowsOut} rows in ${((performance.now() - t1) / 1000).toFixed(3)} s (threads ${args.threads})\n`);
} else if (command === 'asof') {
  const n = args.rows ?? 10_000_000;
  const l = trades({ rows: n, seed: 2 }); const r = quotes({ rows: n, seed: 3 });
  const t1 = performance.now();
  const out = await engine.fromArrow(l).asofJoin(engine.fromArrow(r), { on: 'ts', by: 'sym', direction: args.flags.has('nearest') ? 'nearest' : 'backward' }).collect();
  rowsOut = out.numRows;
  process.stderr.write(`asof: ${rowsOut} rows in ${((performance.now() - t1) / 1000).toFixed(3)} s (threads ${args.threads})\n`);
} else if (command === 'explode') {
  const t = orders({ rows: args.rows ?? 2_000_000, seed: 4 });
  const t1 = performance.now();
  const out = await engine.fromArrow(t).explode(['items', 'quantities'], { outputColumn: ['item', 'quantity'] }).collect();
  rowsOut = out.numRows;
  process.stderr.write(`explode: ${rowsOut} rows in ${((performance.now() - t1) / 1000).toFixed(3)} s (threads ${args.threads})\n`);
} else {
  process.stderr.write(`unknown job ${command}\n`);
  process.exitCode = 2;
}
await engine.close();
