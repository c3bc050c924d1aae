/**
 * `sluice demo`: the three kernels on built-in generated data, no files needed.
 *
 * 1. window: per-user sliding sums, averages, counts and maxima over a serving log
 *    (`--rows`, default 1,000,000 rows): RANGE 7 days / 30 days and ROWS 10.
 * 2. asofJoin: trades × quotes by symbol, nearest quote within a tolerance whose venue matches
 *    the trade's (a residual condition).
 * 3. explode: orders with two parallel lists (items, quantities) zipped into one row per item,
 *    with a 1-based position column.
 *
 * Each section prints what ran (and the plan with --verbose), the first rows, row counts and
 * timings. Sizes: trades = rows/5, quotes = 2·rows/5, orders = rows/10 (at least 1,000 each).
 */
import type { RecordBatch } from 'apache-arrow';
import { avg, count, max, sum, type DataFrame, type Engine, type RunStats } from '../index.js';
import { orders, quotes, servingLog, trades } from './demo-data.js';
import { TableView, type TextSink } from './format.js';

export interface DemoOptions {
  rows: number;
  seed: number;
  verbose: boolean;
  /** rows shown per result table */
  showRows: number;
  /** width the tables fit in (0 = no limit) */
  maxWidth: number;
  color: boolean;
  /** where the text goes (clearing progress bars before each write) */
  out: TextSink;
  signal: AbortSignal;
}

function secs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function n(x: number): string {
  return x.toLocaleString('en-US');
}

function phases(stats: RunStats): string {
  const parts = Object.entries(stats.phases)
    .filter(([, ms]) => typeof ms === 'number' && ms > 0)
    .map(([p, ms]) => `${p} ${secs(ms as number)}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

interface Section {
  title: string;
  what: string;
  inputs: Array<[string, number]>;
  build: () => DataFrame;
  /** a line about the result, from its batches */
  extra?: () => { add(b: RecordBatch): void; text(): string };
}

export async function runDemo(engine: Engine, opts: DemoOptions): Promise<Record<string, RunStats>> {
  const { out } = opts;
  const rows = opts.rows;
  const scaled = (f: number): number => Math.max(1000, Math.round(rows * f));
  const bold = (s: string): string => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);

  const t0 = performance.now();
  const log = servingLog(rows, opts.seed);
  const tr = trades(scaled(0.2), opts.seed + 1);
  const qu = quotes(scaled(0.4), opts.seed + 2);
  const ord = orders(scaled(0.1), opts.seed + 3);
  const genMs = performance.now() - t0;
  await out.write(
    `Sluice demo: ${engine.config.threads === 0 ? 'inline (0 threads)' : `${engine.config.threads} threads`}, ${engine.config.partitions} partitions\n` +
      `generated serving_log ${n(log.numRows)}, trades ${n(tr.numRows)}, quotes ${n(qu.numRows)}, orders ${n(ord.numRows)} rows in ${secs(genMs)}\n`,
  );

  const sections: Record<string, Section> = {
    window: {
      title: 'window: sliding per-user aggregates over a serving log',
      what:
        'serving_log.window({ partitionBy: user_id, orderBy: create_ts,\n' +
        "  tokens_7d: sum(tokens).range('7d'), spend_7d: avg(spend).range('7d'), events_7d: count().range('7d'),\n" +
        "  tokens_last10: sum(tokens).rows(9), max_tokens_30d: max(tokens).range('30d') })",
      inputs: [['serving_log', log.numRows]],
      build: () =>
        engine.fromArrow(log).window({
          partitionBy: 'user_id',
          orderBy: 'create_ts',
          columns: {
            tokens_7d: sum('tokens').range('7d'),
            spend_7d: avg('spend').range('7d'),
            events_7d: count().range('7d'),
            tokens_last10: sum('tokens').rows(9),
            max_tokens_30d: max('tokens').range('30d'),
          },
        }),
    },
    asof: {
      title: 'asofJoin: each trade with the nearest quote of its symbol on the same venue',
      what: "trades.asofJoin(quotes, { on: 'ts', by: 'sym', direction: 'nearest', tolerance: '200ms',\n  condition: 'venue = venue_right' })",
      inputs: [
        ['trades', tr.numRows],
        ['quotes', qu.numRows],
      ],
      build: () =>
        engine.fromArrow(tr).asofJoin(engine.fromArrow(qu), {
          on: 'ts',
          by: 'sym',
          direction: 'nearest',
          tolerance: '200ms',
          condition: 'venue = venue_right',
        }),
      extra: () => {
        let rows = 0;
        let unmatched = 0;
        return {
          add(b) {
            rows += b.numRows;
            unmatched += b.getChild('bid')?.nullCount ?? 0;
          },
          text: () => `matched ${n(rows - unmatched)} of ${n(rows)} trades`,
        };
      },
    },
    explode: {
      title: 'explode: zip two parallel lists into one row per element',
      what: "orders.explode(['items', 'quantities'], { outputColumn: ['item', 'quantity'], ordinality: 'pos' })",
      inputs: [['orders', ord.numRows]],
      build: () => engine.fromArrow(ord).explode(['items', 'quantities'], { outputColumn: ['item', 'quantity'], ordinality: 'pos' }),
    },
  };

  const allStats: Record<string, RunStats> = {};
  const keys = Object.keys(sections);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const s = sections[key]!;
    const df = s.build();
    let text = `\n${bold(`[${k + 1}/${keys.length}] ${s.title}`)}\n${s.what}\n`;
    if (opts.verbose) text += `\n${await df.explain()}\n`;
    await out.write(text);
    const t1 = performance.now();
    // streamed: the view keeps the first rows, the rest is only counted
    const stream = df.stream({ signal: opts.signal });
    const view = new TableView(await df.schema(), { maxRows: opts.showRows, headOnly: true, color: opts.color, maxWidth: opts.maxWidth });
    const extra = s.extra?.();
    for await (const b of stream) {
      view.add(b);
      extra?.add(b);
    }
    const ms = performance.now() - t1;
    const stats = stream.stats!;
    allStats[key] = stats;
    const inputs = s.inputs.map(([name, r]) => `${name} ${n(r)}`).join(' + ');
    const spill = stats.spilledBytes > 0 ? `, spilled ${n(stats.spilledBytes)} bytes in ${stats.spillFiles} files` : '';
    await out.write(
      `${view.render()}` +
        `${inputs} rows in → ${n(view.total)} row${view.total === 1 ? '' : 's'} out in ${secs(ms)}${phases(stats)}${spill}\n` +
        (extra ? `${extra.text()}\n` : ''),
    );
  }
  await out.write(`\ndone in ${secs(performance.now() - t0)}\n`);
  return allStats;
}
