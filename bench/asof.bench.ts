/**
 * ASOF benchmark (issue 3, "Speed").
 *
 * trades and quotes, 1,000 symbols (`sym` utf8 'S0000'..'S0999'), `ts` timestamp[ns] unsorted
 * within one trading session, default 10M x 10M (`--rows` sets both sides, `--right-rows` the
 * quotes alone). End to end from in-memory Arrow tables:
 *   - Sluice asofJoin on ts by sym, backward and nearest, 2 threads (collect() to an Arrow table)
 *   - Polars join_asof by sym (both sides sorted by ts inside the timing), backward and nearest
 *   - DuckDB ASOF LEFT JOIN (backward only: DuckDB has no nearest), result materialized
 * Extras: Sluice backward by sym on 1 thread; the no-`by` variant (range-partitioned) on 1 vs 2
 * threads, with Polars and DuckDB no-`by` rows for reference.
 */
import type { Table } from 'apache-arrow';
import { quotes, tableBytes, trades } from './data.js';
import { type BenchArgs, fmtBytes, gc, header, measure, type Measurement, printTable, wanted } from './harness.js';
import { asofSql, duckdbVersion, loadTable, openDuck, timedQuery, type FetchMode } from './peers/duckdb.js';
import { asofQuery, polarsThreads, polarsVersion, toPolars } from './peers/polars.js';
import { loadSluice, type SluiceModule } from './sluice.js';

type Dir = 'backward' | 'nearest';

function sluiceAsof(s: SluiceModule, left: Table, right: Table, threads: number, direction: Dir, by: boolean) {
  const engine = new s.Engine({ threads });
  const run = async () => {
    const out = await engine.fromArrow(left).asofJoin(engine.fromArrow(right), by ? { on: 'ts', by: 'sym', direction } : { on: 'ts', direction }).collect();
    if (out.numRows !== left.numRows) throw new Error(`asofJoin returned ${out.numRows} rows for ${left.numRows}`);
  };
  return { run, close: () => engine.close() };
}

export async function runAsof(args: BenchArgs): Promise<string> {
  const rows = args.rows ?? (args.quick ? 1_000_000 : 10_000_000);
  const rightRows = Number(args.values.get('right-rows') ?? rows);
  const fetch = (args.values.get('duckdb-fetch') ?? 'table') as FetchMode;
  const opts = { warmup: args.warmup, repeat: args.repeat };
  const t0 = performance.now();
  const left = trades({ rows, symbols: 1000, seed: 2 });
  const right = quotes({ rows: rightRows, symbols: 1000, seed: 3 });
  header(args, {
    bench: 'asof', trades: rows, quotes: rightRows, symbols: 1000,
    input: `${fmtBytes(tableBytes(left))} + ${fmtBytes(tableBytes(right))}`, 'generated in s': ((performance.now() - t0) / 1000).toFixed(1),
  });
  const threads = args.threads;
  const ms: Measurement[] = [];
  const get = (g: string, n: string) => ms.find((m) => m.group === g && m.name.startsWith(n));
  const sluice = args.peersOnly ? undefined : await loadSluice();

  if (sluice) {
    for (const dir of ['backward', 'nearest'] as const) {
      if (!wanted(args, `sluice-${dir}`)) continue;
      const j = sluiceAsof(sluice, left, right, threads, dir, true);
      ms.push(await measure(`by sym, ${dir}`, `sluice threads=${threads}`, opts, j.run));
      await j.close();
    }
    if (threads !== 1 && wanted(args, 'sluice-backward-1')) {
      const j = sluiceAsof(sluice, left, right, 1, 'backward', true);
      ms.push(await measure('by sym, backward', 'sluice threads=1', opts, j.run));
      await j.close();
    }
  }
  if (!args.sluiceOnly && wanted(args, 'polars')) {
    let l: ReturnType<typeof toPolars> | undefined = toPolars(left);
    let r: ReturnType<typeof toPolars> | undefined = toPolars(right);
    for (const dir of ['backward', 'nearest'] as const) {
      ms.push(await measure(`by sym, ${dir}`, `polars ${polarsVersion()}`, opts, () => { asofQuery(l!, r!, dir); },
        `sort both + join_asof; threads ${polarsThreads()}`));
    }
    if (wanted(args, 'noby')) {
      ms.push(await measure('no by, backward', `polars ${polarsVersion()}`, opts, () => { asofQuery(l!, r!, 'backward', false); }, 'sort both + join_asof'));
    }
    l = undefined; r = undefined; gc();
  }
  if (!args.sluiceOnly && wanted(args, 'duckdb')) {
    const duck = await openDuck(2);
    await loadTable(duck.conn, 'trades', left);
    await loadTable(duck.conn, 'quotes', right);
    const note = `threads=${duck.threads}; ${fetch === 'table' ? 'materialized in a temp table' : 'fetched into JS'}`;
    ms.push(await measure('by sym, backward', `duckdb ${duckdbVersion()}`, opts, async () => (await timedQuery(duck, asofSql(true), fetch)).ms, note));
    if (wanted(args, 'noby')) {
      ms.push(await measure('no by, backward', `duckdb ${duckdbVersion()}`, opts, async () => (await timedQuery(duck, asofSql(false), fetch)).ms, note));
    }
    duck.close(); gc();
  }
  if (sluice && wanted(args, 'noby')) {
    for (const t of threads === 1 ? [1] : [threads, 1]) {
      const j = sluiceAsof(sluice, left, right, t, 'backward', false);
      ms.push(await measure('no by, backward', `sluice threads=${t}`, opts, j.run));
      await j.close();
    }
  }
  ms.sort((a, b) => a.group.localeCompare(b.group));
  return printTable(`asof: ${rows} trades x ${rightRows} quotes, 1,000 symbols`, ms, [
    ['backward: sluice / polars (target <= 1.0)', get('by sym, backward', `sluice threads=${threads}`), get('by sym, backward', 'polars')],
    ['backward: sluice / duckdb (target < 0.33)', get('by sym, backward', `sluice threads=${threads}`), get('by sym, backward', 'duckdb')],
    ['nearest: sluice / polars (target <= 1.0)', get('by sym, nearest', `sluice threads=${threads}`), get('by sym, nearest', 'polars')],
    ['backward by sym: 1 thread / 2 threads', get('by sym, backward', 'sluice threads=1'), get('by sym, backward', `sluice threads=${threads}`)],
    ['no by: 1 thread / 2 threads (target >= 1.6)', get('no by, backward', 'sluice threads=1'), get('no by, backward', `sluice threads=${threads}`)],
    ['no by: sluice / polars', get('no by, backward', `sluice threads=${threads}`), get('no by, backward', 'polars')],
    ['backward: polars / duckdb', get('by sym, backward', 'polars'), get('by sym, backward', 'duckdb')],
  ]);
}
