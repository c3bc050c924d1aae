/**
 * Every benchmark workload, once: its data set, the same query for each system, and what to
 * check in the result. Used by the child runner (bench/child.ts) and the profiler job.
 *
 * Equivalent queries, same output columns (names and values) for all three systems:
 *  - Sluice: the API.md verbs, rows in input order.
 *  - Polars: one lazy plan (sort included where the kernel needs sorted input), `collectSync()`
 *    in memory, `sinkParquet` file to file. Rows come out in sort order.
 *  - DuckDB: one SELECT, materialized (`CREATE TEMP TABLE ... AS`) in memory or `COPY ... TO`
 *    Parquet. Window sums are cast to BIGINT (DuckDB's sum(BIGINT) is HUGEINT; the others
 *    return int64).
 * Where a system has no equivalent (DuckDB has no nearest ASOF) or differs on purpose (DuckDB's
 * unnest drops NULL and empty lists), the workload says so.
 */
import type plModule from 'nodejs-polars';
import type { DatasetSpec } from './gen/datasets.js';
import type { DataFrameLike, SluiceModule } from './systems/sluice-api.js';

export type PL = typeof plModule;
export type LazyFrame = ReturnType<PL['scanIPC']>;
export type System = 'sluice' | 'polars' | 'duckdb';
export const SYSTEMS: System[] = ['sluice', 'polars', 'duckdb'];

export interface WorkloadParams {
  rows: number;
  /** window: frame widths; window fns: stddev widths */
  widths?: number[];
  /** fraction of the rows on one key (window: user 0; asof: symbol 0) */
  hot?: number;
  /** asof: right side rows when not `rows` */
  rightRows?: number;
}

export interface Workload {
  name: string;
  kernel: 'window' | 'asof' | 'explode' | 'window-fns' | 'relational';
  title: string;
  /** the data set for these parameters; `inputs` are its files (roles) the query reads, in order */
  data(p: WorkloadParams): DatasetSpec;
  inputs: string[];
  /** input formats the workload can read (no CSV for list columns) */
  formats: Array<'ipc' | 'parquet' | 'csv'>;
  /** result checks: row count, and count of non-NULL values and sum of each of these columns */
  check(p: WorkloadParams): string[];
  /** Sluice API this workload needs beyond window/asofJoin/explode */
  needs?: { functions?: string[]; methods?: string[] };
  sluice(s: SluiceModule, inputs: DataFrameLike[], p: WorkloadParams): DataFrameLike;
  /** undefined: the system has no equivalent query */
  polars?(pl: PL, inputs: LazyFrame[], p: WorkloadParams): LazyFrame;
  duckdb?(tables: string[], p: WorkloadParams): string;
  /** why a system's checks are expected to differ from Sluice's */
  differs?: Partial<Record<System, string>>;
  notes?: Partial<Record<System, string>>;
}

export const WIDTHS = [3, 7, 30, 90, 180];
const MEASURES6 = ['tokens', 'tokens2', 'tokens3', 'tokens4', 'tokens5', 'tokens6'];
const windowData = (p: WorkloadParams, users?: number): DatasetSpec => ({ kind: 'window', rows: p.rows, ...(users ? { users } : {}), ...(p.hot ? { hot: p.hot } : {}) });

function windowSum(name: string, measures: string[], title: string): Workload {
  const cols = (p: WorkloadParams) => measures.flatMap((m) => (p.widths ?? WIDTHS).map((w) => ({ m, w, name: `${m}_w${w}` })));
  return {
    name, kernel: 'window', title,
    data: (p) => windowData(p), inputs: ['window'], formats: ['ipc', 'parquet', 'csv'],
    check: (p) => cols(p).map((c) => c.name),
    sluice: (s, [df], p) => df!.window({
      partitionBy: 'user_id', orderBy: 'create_ts',
      columns: Object.fromEntries(cols(p).map((c) => [c.name, s.sum(c.m).rows(c.w - 1)])),
    }),
    polars: (pl, [df], p) => df!.sort(['user_id', 'create_ts']).withColumns(
      ...cols(p).map((c) => pl.col(c.m).rollingSum({ windowSize: c.w, minPeriods: 1 }).over('user_id').alias(c.name)),
    ),
    duckdb: ([t], p) => `SELECT *, ${cols(p).map((c) => `CAST(sum(${c.m}) OVER (PARTITION BY user_id ORDER BY create_ts ROWS BETWEEN ${c.w - 1} PRECEDING AND CURRENT ROW) AS BIGINT) AS ${c.name}`).join(', ')} FROM ${t}`,
  };
}

function asof(name: string, direction: 'backward' | 'nearest', sym: 'int' | 'str', title: string): Workload {
  return {
    name, kernel: 'asof', title,
    data: (p) => ({ kind: 'market', rows: p.rows, sym, ...(p.rightRows ? { rightRows: p.rightRows } : {}), ...(p.hot ? { hot: p.hot } : {}) }),
    inputs: ['trades', 'quotes'], formats: ['ipc', 'parquet', 'csv'],
    check: () => ['bid'],
    sluice: (_s, [l, r]) => l!.asofJoin(r!, { on: 'ts', by: 'sym', direction }),
    polars: (_pl, [l, r]) => l!.sort('ts').joinAsof(r!.sort('ts'), { on: 'ts', by: 'sym', strategy: direction, checkSortedness: false }),
    ...(direction === 'backward'
      ? { duckdb: ([l, r]: string[]) => `SELECT t.sym, t.ts, t.price, q.bid FROM ${l} t ASOF LEFT JOIN ${r} q ON t.sym = q.sym AND t.ts >= q.ts` }
      : {}),
    differs: direction === 'nearest' ? { polars: 'equal gaps: Sluice takes the earlier quote, Polars the later' } : undefined,
    notes: direction === 'nearest' ? { duckdb: 'no nearest ASOF in DuckDB' } : undefined,
  };
}

const explode: Workload = {
  name: 'explode', kernel: 'explode', title: 'explode 2 lists (zip), NULL/empty lists kept as one NULL row',
  data: (p) => ({ kind: 'orders', rows: p.rows }), inputs: ['explode'], formats: ['ipc', 'parquet'],
  check: () => ['items', 'quantities'],
  sluice: (_s, [df]) => df!.explode(['items', 'quantities']),
  polars: (_pl, [df]) => df!.explode(['items', 'quantities']),
  duckdb: ([t]) => `SELECT id, unnest(items) AS items, unnest(quantities) AS quantities, label FROM ${t}`,
  differs: { duckdb: 'unnest drops rows whose lists are NULL or empty (5% of the input rows)' },
};

const lagRank: Workload = {
  name: 'lag-lead-rank', kernel: 'window-fns', title: 'lag + lead + rowNumber + rank per user by create_ts',
  data: (p) => windowData(p), inputs: ['window'], formats: ['ipc', 'parquet', 'csv'],
  check: () => ['prev', 'next', 'rn', 'rk'],
  needs: { functions: ['lag', 'lead', 'rowNumber', 'rank'] },
  sluice: (s, [df]) => df!.window({
    partitionBy: 'user_id', orderBy: 'create_ts',
    columns: { prev: s.lag!('tokens'), next: s.lead!('tokens'), rn: s.rowNumber!(), rk: s.rank!() },
  }),
  polars: (pl, [df]) => df!.sort(['user_id', 'create_ts']).withColumns(
    pl.col('tokens').shift(1).over('user_id').alias('prev'),
    pl.col('tokens').shift(-1).over('user_id').alias('next'),
    pl.col('create_ts').cumCount().over('user_id').alias('rn'),
    pl.col('create_ts').rank('min').over('user_id').alias('rk'),
  ),
  duckdb: ([t]) => `SELECT *, lag(tokens) OVER w AS prev, lead(tokens) OVER w AS next, row_number() OVER w AS rn, rank() OVER w AS rk FROM ${t} WINDOW w AS (PARTITION BY user_id ORDER BY create_ts)`,
};

const STD_WIDTHS = [30, 180];
const stddevW: Workload = {
  name: 'stddev', kernel: 'window-fns', title: 'stddev(tokens) over ROWS 30 and 180 per user',
  data: (p) => windowData(p), inputs: ['window'], formats: ['ipc', 'parquet', 'csv'],
  check: (p) => (p.widths ?? STD_WIDTHS).map((w) => `std_w${w}`),
  needs: { functions: ['stddev'] },
  sluice: (s, [df], p) => df!.window({
    partitionBy: 'user_id', orderBy: 'create_ts',
    columns: Object.fromEntries((p.widths ?? STD_WIDTHS).map((w) => [`std_w${w}`, s.stddev!('tokens').rows(w - 1)])),
  }),
  // minPeriods 2: a frame with one value gives NULL (sample stddev), as in Sluice and DuckDB
  polars: (pl, [df], p) => df!.sort(['user_id', 'create_ts']).withColumns(
    ...(p.widths ?? STD_WIDTHS).map((w) => pl.col('tokens').rollingStd({ windowSize: w, minPeriods: 2 }).over('user_id').alias(`std_w${w}`)),
  ),
  duckdb: ([t], p) => `SELECT *, ${(p.widths ?? STD_WIDTHS).map((w) => `stddev_samp(tokens) OVER (PARTITION BY user_id ORDER BY create_ts ROWS BETWEEN ${w - 1} PRECEDING AND CURRENT ROW) AS std_w${w}`).join(', ')} FROM ${t}`,
};

function groupBy(name: string, rowsPerGroup: number | undefined, title: string): Workload {
  return {
    name, kernel: 'relational', title,
    data: (p) => windowData(p, rowsPerGroup ? Math.max(1, Math.round(p.rows / rowsPerGroup)) : undefined), inputs: ['window'], formats: ['ipc', 'parquet', 'csv'],
    check: () => ['tokens_sum', 'n', 'tokens_max'],
    needs: { methods: ['groupBy'] },
    sluice: (s, [df]) => df!.groupBy!('user_id').agg({ tokens_sum: s.sum('tokens'), n: s.count(), tokens_max: s.max('tokens') }),
    // maintainOrder: groups in order of their first row, as Sluice returns them
    polars: (pl, [df]) => df!.groupBy('user_id', { maintainOrder: true }).agg(
      pl.col('tokens').sum().alias('tokens_sum'), pl.len().alias('n'), pl.col('tokens').max().alias('tokens_max'),
    ),
    duckdb: ([t]) => `SELECT user_id, CAST(sum(tokens) AS BIGINT) AS tokens_sum, count(*) AS n, max(tokens) AS tokens_max FROM ${t} GROUP BY user_id`,
    differs: { polars: 'sum over a group whose values are all NULL is 0 in Polars, NULL in SQL' },
    notes: { duckdb: 'groups in no particular order' },
  };
}

function join(name: string, key: 'key' | 'skey', how: 'inner' | 'left', title: string): Workload {
  const other = key === 'key' ? 'skey' : 'key';
  return {
    name, kernel: 'relational', title,
    data: (p) => ({ kind: 'join', rows: p.rows, dimRows: Math.max(1, Math.round(p.rows / 10)) }), inputs: ['fact', 'dim'], formats: ['ipc', 'parquet', 'csv'],
    check: () => ['attr', `${other}_right`],
    needs: { methods: ['join'] },
    sluice: (_s, [l, r]) => l!.join!(r!, { on: key, how }),
    polars: (_pl, [l, r]) => l!.join(r!, { on: key, how, suffix: '_right' }),
    duckdb: ([l, r]) => `SELECT f.*, d.${other} AS ${other}_right, d.attr FROM ${l} f ${how === 'left' ? 'LEFT ' : ''}JOIN ${r} d ON f.${key} = d.${key}`,
    notes: { polars: 'row order not kept', duckdb: 'row order not kept' },
  };
}

const sortW: Workload = {
  name: 'sort', kernel: 'relational', title: 'sort by (user_id, create_ts)',
  data: (p) => windowData(p), inputs: ['window'], formats: ['ipc', 'parquet', 'csv'],
  check: () => ['tokens'],
  needs: { methods: ['sort'] },
  sluice: (_s, [df]) => df!.sort!('user_id', 'create_ts'),
  polars: (_pl, [df]) => df!.sort({ by: ['user_id', 'create_ts'], maintainOrder: true }),
  duckdb: ([t]) => `SELECT * FROM ${t} ORDER BY user_id, create_ts`,
};

const distinctW: Workload = {
  name: 'distinct', kernel: 'relational', title: 'distinct rows (10% distinct)',
  data: (p) => ({ kind: 'distinct', rows: p.rows, distinct: Math.max(1, Math.round(p.rows / 10)) }), inputs: ['distinct'], formats: ['ipc', 'parquet', 'csv'],
  check: () => ['k', 'v'],
  needs: { methods: ['distinct'] },
  sluice: (_s, [df]) => df!.distinct!(),
  polars: (_pl, [df]) => df!.unique({ maintainOrder: true }),
  duckdb: ([t]) => `SELECT DISTINCT * FROM ${t}`,
  notes: { duckdb: 'rows in no particular order' },
};

export const WORKLOADS: Workload[] = [
  windowSum('window1', ['tokens'], 'window: sum(tokens) over ROWS widths 3/7/30/90/180 per user'),
  windowSum('window6', MEASURES6, 'window: 6 measures x 5 ROWS widths (30 sums) per user'),
  asof('asof', 'backward', 'int', 'ASOF backward by int32 sym'),
  asof('asof-nearest', 'nearest', 'int', 'ASOF nearest by int32 sym'),
  asof('asof-str', 'backward', 'str', "ASOF backward by utf8 sym ('S0000'...)"),
  explode,
  lagRank,
  stddevW,
  groupBy('groupby-100k', undefined, 'groupBy(user_id).agg(sum, count, max), rows/100 groups'),
  groupBy('groupby-5m', 2, 'groupBy(user_id).agg(sum, count, max), rows/2 groups (5M at 10M rows)'),
  join('join-int-inner', 'key', 'inner', 'inner join 10:1 on an int64 key'),
  join('join-int-left', 'key', 'left', 'left join 10:1 on an int64 key'),
  join('join-str-inner', 'skey', 'inner', 'inner join 10:1 on a utf8 key'),
  join('join-str-left', 'skey', 'left', 'left join 10:1 on a utf8 key'),
  sortW,
  distinctW,
];

export function workload(name: string): Workload {
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new Error(`unknown workload ${JSON.stringify(name)}; known: ${WORKLOADS.map((x) => x.name).join(', ')}`);
  return w;
}
