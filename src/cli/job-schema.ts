/**
 * The shape of a job file (README-jobs.md), as one zod schema built from the API's own option
 * schemas (src/options): a step `{ "op": "asofJoin", ... }` takes exactly the keys of
 * `asofJoin()`'s options, so an option added there is a job-file key too. Only what has no JSON
 * form in the API is spelled differently here: expressions are SQL text, window columns are
 * `{ "fn", "column", "rows" | "range" | "groups", "n", "default", "ignoreNulls", "minPeriods" }`,
 * and an ASOF right side names a source.
 *
 * `schema/job.schema.json` is generated from this file (`npm run schema`; a test checks that
 * it is up to date), so editors complete and check job files that point to it with "$schema".
 */
import * as z from 'zod';
import { asofShape } from '../options/asof.js';
import { explodeShape } from '../options/explode.js';
import { anyOf, bool, entries, expecting, int, jsonSchemaOf, list, name, oneOf, options } from '../options/kit.js';
import { csvReadShape, ipcReadShape, ndjsonReadShape, parquetReadShape } from '../options/read.js';
import { orderKey, windowShape } from '../options/window.js';
import { joinShape } from '../options/relational.js';
import { PARQUET_COMPRESSIONS, partitionColumns, writeIpcOptions, writeParquetOptions } from '../options/actions.js';
import { DATASETS } from './demo-data.js';

export const FORMATS = ['table', 'csv', 'tsv', 'json', 'ndjson', 'arrow', 'parquet'] as const;
export type OutputFormat = (typeof FORMATS)[number];

const sql = (what = 'an SQL expression') => name(`${what} (non-empty string)`);
const sqlList = () => anyOf('an SQL expression or a non-empty list of them', [sql(), list(sql(), 'a non-empty list of SQL expressions')]);
const path = () => name("a path: a file, a glob, a folder, or '-' for standard input");

// ---- sources -----------------------------------------------------------------------------------

const typedSource = z.discriminatedUnion('type', [
  options({ type: z.literal('ipc'), path: path().describe('Arrow IPC file or stream'), ...ipcReadShape }),
  options({ type: z.literal('parquet'), path: path(), ...parquetReadShape }),
  options({ type: z.literal('csv'), path: path(), ...csvReadShape }),
  options({ type: z.literal('ndjson'), path: path(), ...ndjsonReadShape }),
  options({
    type: z.literal('demo'),
    dataset: oneOf(DATASETS),
    rows: int(0).optional().describe('rows to generate (default 10000)'),
    seed: int(0).optional(),
  }),
]);

/** A file source without "type": the path's extension names the format (job.ts resolves it). */
// `type` is listed as never allowed so that a source with a mistyped "type" fails here on that
// key (and the error reported is the typed sources', "did you mean"), not on an unknown key.
const pathSource = options({ path: path().describe('a file, glob or folder whose extension names the format (.parquet, .csv, .arrow, .ndjson, ...)'), type: z.never().optional() });
const source = anyOf('a source: { "type", "path", ... }, { "path" } with a known extension, or { "type": "demo", ... }', [typedSource, pathSource]);

// ---- window columns ----------------------------------------------------------------------------

export const WINDOW_FNS = [
  'sum', 'count', 'avg', 'min', 'max', 'stddev', 'variance', 'stddevPop', 'varPop', 'countDistinct',
  'first', 'last', 'nthValue', 'lag', 'lead', 'rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile',
] as const;
const NO_COLUMN: ReadonlySet<string> = new Set(['rowNumber', 'rank', 'denseRank', 'percentRank', 'cumeDist', 'ntile']);
const TAKES_N: ReadonlySet<string> = new Set(['nthValue', 'lag', 'lead', 'ntile']);

/** A frame offset: a number, "unbounded", a duration ("7d"), or an integer written as a string. */
const offset = () => anyOf('a number, "unbounded", a duration such as "7d", or an integer as a string', [z.number(), z.string()]);
const frame = () =>
  anyOf('an offset or [preceding, following]', [offset(), z.array(offset(), expecting('[preceding] or [preceding, following]')).min(1, expecting('[preceding] or [preceding, following]')).max(2, expecting('[preceding] or [preceding, following]'))]);
/** An exact integer: a JSON integer or an integer written as a string (beyond 2^53). */
const integerArg = () =>
  anyOf('an integer, or an integer as a string', [z.number(expecting('an integer')).int(expecting('an integer')), z.string().regex(/^\s*[+-]?\d+\s*$/, expecting('an integer as a string'))]);
const literal = () => anyOf('a string, number, boolean or null', [z.string(), z.number(), z.boolean(), z.null()]);

const windowColumn = options({
  fn: oneOf(WINDOW_FNS),
  column: name().optional().describe('measure column (count may omit it: count of rows; ranking functions take none)'),
  rows: frame().optional().describe('ROWS frame: preceding, or [preceding, following]'),
  range: frame().optional().describe('RANGE frame over the single order key'),
  groups: frame().optional().describe('GROUPS frame: offsets count peer groups'),
  n: integerArg().optional().describe("nthValue's n, lag/lead's rows (default 1), ntile's buckets"),
  default: literal().optional().describe("lag/lead: the value beyond the partition's edge"),
  ignoreNulls: z.boolean(expecting('true or false')).optional().describe('first/last/nthValue/lag/lead skip NULL values'),
  minPeriods: int(0).optional().describe('NULL when the frame holds fewer non-NULL values'),
}).superRefine((c, ctx) => {
  if (c.column === undefined && c.fn !== 'count' && !NO_COLUMN.has(c.fn)) {
    ctx.addIssue({ code: 'custom', path: ['column'], input: undefined, message: `Expected a column name (only count may omit it), got nothing` });
  }
  // A key the function does not read would be silently ignored (a rank "by" a column, a sum with "n"): refused.
  if (c.column !== undefined && NO_COLUMN.has(c.fn)) {
    ctx.addIssue({ code: 'custom', path: ['column'], input: c.column, message: `Expected no "column": ${c.fn} takes none (ranking functions rank by the window's orderBy)` });
  }
  if (c.n !== undefined && !TAKES_N.has(c.fn)) ctx.addIssue({ code: 'custom', path: ['n'], input: c.n, message: `Expected no "n": only ${[...TAKES_N].join(', ')} take one, not ${c.fn}` });
  if (c.default !== undefined && c.fn !== 'lag' && c.fn !== 'lead') ctx.addIssue({ code: 'custom', path: ['default'], input: c.default, message: `Expected no "default": only lag and lead take one, not ${c.fn}` });
  const frames = (['rows', 'range', 'groups'] as const).filter((m) => c[m] !== undefined);
  if (frames.length > 1) ctx.addIssue({ code: 'custom', input: c, message: `Expected one of "rows", "range" or "groups", got ${frames.map((m) => JSON.stringify(m)).join(' and ')}` });
});

export type WindowColumnSpec = z.output<typeof windowColumn>;

// ---- relational steps --------------------------------------------------------------------------

export const GROUP_FNS = ['sum', 'count', 'avg', 'min', 'max', 'first', 'last', 'countDistinct'] as const;

const aggColumn = options({
  fn: oneOf(GROUP_FNS),
  column: name().optional().describe('input column (only count may omit it: count of rows)'),
  ignoreNulls: bool().optional().describe('first/last: skip NULL values'),
}).superRefine((c, ctx) => {
  if (c.column === undefined && c.fn !== 'count') ctx.addIssue({ code: 'custom', path: ['column'], input: undefined, message: `Expected a column name (only count may omit it), got nothing` });
});

export type AggColumnSpec = z.output<typeof aggColumn>;

const names = () => anyOf('a column name or a non-empty list of column names', [name(), list(name(), 'a non-empty list of column names')]);
const sortBy = () => anyOf('a sort key or a non-empty list of them (a name or { column, descending?, nulls? })', [orderKey(), list(orderKey(), 'a non-empty list of sort keys')]);

/** Another input of a step (join right side, union input): a source, optionally prepared by its own steps. */
type SideSpec = string | { source: string; steps?: StepSpec[] | undefined };
type SortKeySpec = string | { column: string; descending?: boolean | undefined; nulls?: 'first' | 'last' | undefined };

// ---- steps -------------------------------------------------------------------------------------

type Out<S extends z.core.$ZodLooseShape> = z.output<z.ZodObject<S>>;

/** A validated step (typed by hand: steps nest through asofJoin's right side). */
export type StepSpec =
  | { op: 'select'; exprs: string | string[] }
  | { op: 'filter'; where: string }
  | { op: 'withColumns'; columns: Record<string, string> }
  | { op: 'limit'; n: number }
  | ({ op: 'explode'; columns: string | string[] } & Out<typeof explodeShape>)
  | ({ op: 'window' } & Omit<Out<typeof windowShape>, 'columns'> & { columns: Record<string, WindowColumnSpec> })
  | ({ op: 'asofJoin'; right: SideSpec } & Out<typeof asofShape>)
  | { op: 'sort'; by: SortKeySpec | SortKeySpec[] }
  | { op: 'groupBy'; by?: string | string[] | undefined; aggs: Record<string, AggColumnSpec> }
  | ({ op: 'join'; right: SideSpec } & Out<typeof joinShape>)
  | { op: 'distinct'; columns?: string | string[] | undefined }
  | { op: 'rename'; columns: Record<string, string> }
  | { op: 'drop'; columns: string | string[] }
  | { op: 'union'; others: SideSpec | SideSpec[] };

const step: z.ZodType<StepSpec> = z.lazy(() =>
  z.discriminatedUnion('op', [
    options({ op: z.literal('select'), exprs: sqlList() }),
    options({ op: z.literal('filter'), where: sql('an SQL condition') }),
    options({ op: z.literal('withColumns'), columns: entries('an object { "name": "SQL expression" }', sql()) }),
    options({ op: z.literal('limit'), n: int(0) }),
    options({ op: z.literal('explode'), columns: sqlList(), ...explodeShape }),
    options({ op: z.literal('window'), ...windowShape, columns: entries('an object { "name": { "fn", "column", "rows" | "range" | "groups", ... } } with at least one column', windowColumn) }),
    options({ op: z.literal('asofJoin'), right: side(), ...asofShape }),
    options({ op: z.literal('sort'), by: sortBy() }),
    options({
      op: z.literal('groupBy'),
      by: anyOf('a column name or a list of column names (none: the whole input is one group)', [name(), z.array(name(), expecting('a list of column names'))]).optional(),
      aggs: z.record(name('an output column name'), aggColumn, expecting('an object { "name": { "fn", "column" } }')),
    }),
    options({ op: z.literal('join'), right: side(), ...joinShape }),
    options({ op: z.literal('distinct'), columns: names().optional() }),
    options({ op: z.literal('rename'), columns: entries('an object { "oldName": "newName" }', name('a new column name (non-empty string)')) }),
    options({ op: z.literal('drop'), columns: names() }),
    options({ op: z.literal('union'), others: anyOf('a source name or { "source", "steps" }, or a non-empty list of them', [side(), list(side(), 'a non-empty list of sources')]) }),
  ]),
);

/** A source name, or { "source", "steps" } to prepare it first. */
function side() {
  return anyOf('a source name or { "source", "steps" }', [name('a source name'), asofRight]);
}

const steps = z.array(step, expecting('a list of steps'));

/** An ASOF right side prepared by its own steps. */
const asofRight = options({ source: name('a source name'), steps: z.lazy(() => steps).optional() });

// ---- the job -----------------------------------------------------------------------------------

export const jobSchema = options(
  {
    $schema: z.string().optional().describe('the JSON Schema of job files (schema/job.schema.json), for editors'),
    description: z.string().optional(),
    sources: entries('an object of named sources, e.g. { "trades": { "type": "parquet", "path": "trades.parquet" } }', source),
    main: name('a source name').optional().describe('the source the steps apply to (default: the first)'),
    steps: steps.optional(),
    output: options({
      path: path().optional(),
      format: oneOf(FORMATS).optional(),
      // the writers' own option values (writeParquet's list holds writeIpc's); which format takes which is checked when the output is planned
      compression: oneOf(PARQUET_COMPRESSIONS).optional().describe('parquet: none, snappy, gzip, brotli, lz4, zstd (default zstd); arrow: none (default), lz4, zstd'),
      partitionBy: partitionColumns().optional().describe('parquet only: Hive-style key=value folders under output.path'),
      rowGroupSize: writeParquetOptions.shape.rowGroupSize.describe('parquet only: rows per row group (default 131072)'),
      // writeIpc's `format`, renamed: `format` is the output format here
      ipcFormat: writeIpcOptions.shape.format.describe('arrow only: the Arrow IPC file format or the stream format (default: from the extension, .arrows is stream; stdout is stream; else file)'),
    }).optional(),
  },
  'a job object { "sources", "steps", "output" }',
);

export type JobDocument = z.output<typeof jobSchema>;
/** The job's "output": where, in which format, and the writer's options. */
export type OutputSpec = NonNullable<JobDocument['output']>;
/** A source as it runs: its type known (a `{ path }` source's from the extension). */
export type SourceSpec = z.output<typeof typedSource>;

/** The published JSON Schema of job files (schema/job.schema.json). */
export function jobJsonSchema(): Record<string, unknown> {
  // zod names the one recursive definition (the steps) `__schema0`: give it its name.
  const text = JSON.stringify(jsonSchemaOf(jobSchema)).replaceAll('__schema0', 'steps');
  return {
    ...(JSON.parse(text) as Record<string, unknown>),
    title: 'Sluice job file',
    description: 'A Sluice job: named sources, steps applied to the main source, and an output (src/cli/README-jobs.md).',
  };
}

