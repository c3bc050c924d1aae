// window1 (5 ROWS sums per row, partitionBy user_id, orderBy create_ts), preserveOrder true vs
// false, at the given budgets: median of 3 runs, peakTrackedBytes, spills. `table`: from an
// in-memory table into a table (execute()); `file`: readIpc -> writeIpc (a temp file).
// Usage: npm run build && node scripts/bench-preserve-order.mjs table|file <window.ipc> 1GiB 8GiB
import * as A from 'apache-arrow';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { Engine, sum } = await import('../dist/index.js');
const [mode, path, ...budgets] = process.argv.slice(2);
const t = mode === 'table' ? A.tableFromIPC(readFileSync(path)) : null;
const out = join(tmpdir(), `bench-preserve-order-${process.pid}.arrow`);
const cols = {};
for (const w of [3, 7, 30, 90, 180]) cols[`t${w}`] = sum('tokens').rows(w - 1);
for (const budget of budgets) {
  for (const preserveOrder of [true, false]) {
    const engine = new Engine({ threads: 2, memoryBudget: budget });
    const times = [];
    let st;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const df = (t ? engine.fromArrow(t) : engine.readIpc(path)).window({ partitionBy: 'user_id', orderBy: 'create_ts', columns: cols, preserveOrder });
      if (t) {
        const { stats, table } = await df.execute();
        if (table.numRows !== t.numRows) throw new Error('rows lost');
        st = stats;
      } else {
        st = await df.writeIpc(out);
        rmSync(out, { force: true });
      }
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const mib = (b) => (b / 2 ** 20).toFixed(0);
    console.log(`${mode} ${budget} preserveOrder ${preserveOrder}: median ${(times[1] / 1000).toFixed(2)} s (min ${(times[0] / 1000).toFixed(2)}), peakTracked ${mib(st.peakTrackedBytes)} MiB, spilled ${mib(st.spilledBytes)} MiB, partitions ${st.partitions}, phases ${JSON.stringify(Object.fromEntries(Object.entries(st.phases).map(([k, v]) => [k, Math.round(v)])))}`);
    await engine.close();
  }
}
