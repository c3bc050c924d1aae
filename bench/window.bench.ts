/**
 * Window benchmark (issue 2, "Speed").
 *
 * Main job: serving log (default 10M rows, 100k users, unsorted create_ts), rolling sums of
 * `tokens` over ROWS frames of widths 3/7/30/90/180 per user ordered by create_ts, end to end
 * from an in-memory Arrow table to an Arrow table (Sluice, 2 threads), vs Polars
 * (sort + rollingSum().over('user_id'), result materialized) and DuckDB (window query, result
 * materialized into a temp table).
 *
 * Extras (Sluice only): prefix path vs the naive per-frame fold on the seed's shapes
 *   A: 6 measures x widths 3/7/30/90/180 (ROWS 2/6/29/89/179 PRECEDING), ~1,000 rows per user
 *   B: 1 measure, same 5 widths (total width 310), ~1,000 rows per user
 *   C: 1 measure, same 5 widths, exactly 32,768 rows per partition
 * (`--shape-rows`, default 1M; 250k with --quick), 1 vs 2 threads on the main job, and peak
 * RSS against the input size.
 */
import type { Table } from 'apache-arrow';
import { servingLog, tableBytes } from './data.js';
import {
  type BenchArgs, fmtBytes, gc, header, measure, type Measurement, printTable, rssBytes, wanted,
} from './harness.js';
import { duckdbVersion, loadTable, openDuck, timedQuery, windowSql, type FetchMode } from './peers/duckdb.js';
import { polarsThreads, polarsVersion, toPolars, windowQuery } from './peers/polars.js';
import { loadSluice, type FrameAgg, type SluiceModule } from './sluice.js';

export const WIDTHS = [3, 7, 30, 90, 180];

function frames(s: SluiceModule, measures: string[]): Record<string, FrameAgg> {
  const cols: Record<string, FrameAgg> = {};
  for (const m of measures) for (const w of WIDTHS) cols[`${m}_${w}`] = s.sum(m).rows(w - 1);
  return cols;
}

async function sluiceWindow(
  s: SluiceModule, table: Table, measures: string[], threads: number, algo?: 'naive',
): Promise<{ run: () => Promise<void>; close: () => Promise<void> }> {
  const engine = new s.Engine(algo ? { threads, windowAlgorithm: algo } : { threads });
  const run = async () => {
    const out = await engine.fromArrow(table).window({ partitionBy: 'user_id', orderBy: 'create_ts', columns: frames(s, measures) }).collect();
    if (out.numRows !== table.numRows) throw new Error(`window returned ${out.numRows} rows for ${table.numRows}`);
  };
  return { run, close: () => engine.close() };
}

export async function runWindow(args: BenchArgs): Promise<string> {
  const rows = args.rows ?? (args.quick ? 1_000_000 : 10_000_000);
  const shapeRows = Number(args.values.get('shape-rows') ?? (args.quick ? 250_000 : 1_000_000));
  const fetch = (args.values.get('duckdb-fetch') ?? 'table') as FetchMode;
  const opts = { warmup: args.warmup, repeat: args.repeat };
  const rss0 = rssBytes();
  const t0 = performance.now();
  const table = servingLog({ rows, users: 100_000, seed: 1 });
  const input = tableBytes(table);
  header(args, { bench: 'window', rows, users: 100_000, widths: WIDTHS.join('/'), input: fmtBytes(input), 'generated in s': ((performance.now() - t0) / 1000).toFixed(1) });
  const ms: Measurement[] = [];
  const threads = args.threads;
  let sluice: SluiceModule | undefined;
  if (!args.peersOnly) sluice = await loadSluice();

  // --- main job
  let sl2: Measurement | undefined; let sl1: Measurement | undefined;
  if (sluice) {
    if (wanted(args, 'sluice')) {
      const j = await sluiceWindow(sluice, table, ['tokens'], threads);
      sl2 = await measure('main', `sluice threads=${threads}`, opts, j.run);
      await j.close();
      sl2.note = `peak RSS / input = ${(sl2.peakRss / input).toFixed(2)}x; (peak - RSS before data) / input = ${((sl2.peakRss - rss0) / input).toFixed(2)}x`;
      ms.push(sl2);
    }
    if (wanted(args, 'threads1') && threads !== 1) {
      const j = await sluiceWindow(sluice, table, ['tokens'], 1);
      sl1 = await measure('main', 'sluice threads=1', opts, j.run);
      await j.close();
      ms.push(sl1);
    }
  }
  let po: Measurement | undefined; let dk: Measurement | undefined;
  if (!args.sluiceOnly && wanted(args, 'polars')) {
    let df: ReturnType<typeof toPolars> | undefined = toPolars(table);
    po = await measure('main', `polars ${polarsVersion()}`, opts, () => { const r = windowQuery(df!); if (r.height !== rows) throw new Error('polars rows'); },
      `sort + rollingSum.over; threads ${polarsThreads()}`);
    ms.push(po);
    if (wanted(args, 'polars-presorted')) {
      // for reference: the rolling sums alone on input already sorted by (user_id, create_ts)
      const sorted = df.sort(['user_id', 'create_ts']);
      ms.push(await measure('main', 'polars, pre-sorted input', opts, () => { windowQuery(sorted, WIDTHS, false); }, 'rollingSum.over only (sort excluded): reference, not the target'));
    }
    df = undefined; gc();
  }
  if (!args.sluiceOnly && wanted(args, 'duckdb')) {
    const duck = await openDuck(2);
    await loadTable(duck.conn, 'serving_log', table);
    const sql = windowSql(WIDTHS);
    dk = await measure('main', `duckdb ${duckdbVersion()}`, opts, async () => (await timedQuery(duck, sql, fetch)).ms,
      `threads=${duck.threads}; result ${fetch === 'table' ? 'materialized in a temp table' : 'fetched into JS typed arrays'}`);
    duck.close(); gc();
    ms.push(dk);
  }

  // --- shapes: prefix vs naive
  const shapeRatios: Array<[string, Measurement | undefined, Measurement | undefined]> = [];
  if (sluice && wanted(args, 'shape')) {
    const shapes: Array<[string, () => Table, string[]]> = [
      ['A', () => servingLog({ rows: shapeRows, users: Math.max(1, Math.round(shapeRows / 1000)), seed: 11, extraMeasures: 6 }), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5']],
      ['B', () => servingLog({ rows: shapeRows, users: Math.max(1, Math.round(shapeRows / 1000)), seed: 12 }), ['tokens']],
      ['C', () => servingLog({ rows: shapeRows, rowsPerUser: 32_768, seed: 13 }), ['tokens']],
    ];
    for (const [name, make, measures] of shapes) {
      if (!wanted(args, `shape${name}`)) continue;
      const t = make();
      const desc = `${shapeRows} rows, ${measures.length} measure(s) x 5 widths`;
      const jp = await sluiceWindow(sluice, t, measures, threads);
      const p = await measure(`shape ${name}`, 'sluice prefix', opts, jp.run, desc);
      await jp.close();
      const jn = await sluiceWindow(sluice, t, measures, threads, 'naive');
      const n = await measure(`shape ${name}`, 'sluice naive fold', opts, jn.run, desc);
      await jn.close();
      ms.push(p, n);
      shapeRatios.push([`shape ${name}: naive / prefix (target >= 5x on A)`, n, p]);
    }
  }

  return printTable(`window: ${rows} rows, 5 ROWS frames per user`, ms, [
    ['sluice / polars (target <= 1.0)', sl2, po],
    ['sluice / duckdb (target < 0.33)', sl2, dk],
    ['sluice 1 thread / 2 threads (target >= 1.8)', sl1, sl2],
    ['polars / duckdb', po, dk],
    ...shapeRatios,
  ]);
}
