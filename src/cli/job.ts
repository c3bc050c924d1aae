/**
 * Job files (`sluice run job.json`, `sluice explain job.json`; documented in README-jobs.md).
 *
 * `loadJob` reads and validates the JSON shape, naming the JSON path of every problem
 * (`$.steps[2].columns.tokens_7d.rows: …`) as a JobError (exit code 2). `buildJob` turns the
 * validated job into a DataFrame through the public API only; a PlanError raised by a step
 * (at the call, or when its schema is derived) is re-raised with the step's JSON path.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Field, Schema, type DataType } from 'apache-arrow';
import { parseTypeName, TYPE_NAMES, typeToArrow } from '../expr/arrow-types.js';
import { avg, count, expr, max, min, PlanError, sum, type DataFrame, type Engine, type WindowFn } from '../index.js';
import { DATASETS, generate, type DatasetName } from './demo-data.js';
import { JobError } from './errors.js';

export { JobError };

export const FORMATS = ['table', 'csv', 'tsv', 'json', 'ndjson', 'arrow', 'parquet'] as const;
export type OutputFormat = (typeof FORMATS)[number];


// ---- validated job shape ---------------------------------------------------------------------

export type SourceSpec =
  | { type: 'ipc' | 'parquet' | 'ndjson'; path: string }
  | { type: 'csv'; path: string; header?: boolean; delimiter?: string; schema?: Schema }
  | { type: 'demo'; dataset: DatasetName; rows: number; seed?: number };

type Offset = number | bigint | string;
interface WindowColumnSpec {
  fn: 'sum' | 'count' | 'avg' | 'min' | 'max';
  column?: string;
  frame?: { mode: 'rows' | 'range'; preceding: Offset; following: Offset };
}

export type StepSpec =
  | { op: 'select'; exprs: string[] }
  | { op: 'filter'; where: string }
  | { op: 'withColumns'; columns: Record<string, string> }
  | { op: 'limit'; n: number }
  | { op: 'explode'; columns: string[]; outputColumn?: string | string[]; ignoreEmptyAndNull?: boolean; ordinality?: string }
  | { op: 'window'; partitionBy?: string | string[]; orderBy?: unknown; columns: Record<string, WindowColumnSpec> }
  | { op: 'asofJoin'; right: { source: string; steps: StepSpec[] }; options: Record<string, unknown> };

export interface JobSpec {
  sources: Record<string, SourceSpec>;
  main: string;
  steps: StepSpec[];
  output?: { path?: string; format?: OutputFormat };
}

// ---- small validators ------------------------------------------------------------------------

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return `an array (${JSON.stringify(v).slice(0, 60)})`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function fail(path: string, expected: string, got: unknown): never {
  throw new JobError(`${path}: expected ${expected}, got ${describe(got)}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(v: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(v)) fail(path, 'an object', v);
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) throw new JobError(`${path}: unknown key ${JSON.stringify(k)} (allowed: ${allowed.join(', ')})`);
  }
  return v;
}

function str(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') fail(path, 'a non-empty string', v);
  return v;
}

function optStr(v: unknown, path: string): string | undefined {
  return v === undefined ? undefined : str(v, path);
}

function optBool(v: unknown, path: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') fail(path, 'true or false', v);
  return v;
}

function strOrStrs(v: unknown, path: string): string | string[] {
  if (typeof v === 'string') return str(v, path);
  if (!Array.isArray(v) || v.length === 0) fail(path, 'a string or a non-empty array of strings', v);
  return v.map((x, i) => str(x, `${path}[${i}]`));
}

function strs(v: unknown, path: string): string[] {
  const r = strOrStrs(v, path);
  return typeof r === 'string' ? [r] : r;
}

function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !values.includes(v as T)) fail(path, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`, v);
  return v as T;
}

function integer(v: unknown, path: string, min: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) fail(path, `an integer >= ${min}`, v);
  return v;
}

/** A frame offset or tolerance: numbers, 'unbounded', durations; integer strings become bigints. */
function offset(v: unknown, path: string): Offset {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '') return /^\s*[+-]?\d+\s*$/.test(v) ? BigInt(v.trim()) : v;
  return fail(path, `a number, "unbounded", a duration like "7d", or an integer as a string`, v);
}

// ---- CSV schema ------------------------------------------------------------------------------

/** A CSV column type: any name `cast` accepts (src/expr/arrow-types parseTypeName). */
function csvType(v: unknown, path: string): DataType {
  const desc = typeof v === 'string' ? parseTypeName(v) : null;
  if (desc) return typeToArrow(desc);
  return fail(path, `a type name (${TYPE_NAMES.join(', ')})`, v);
}

function csvSchema(v: unknown, path: string): Schema {
  if (Array.isArray(v)) {
    if (v.length === 0) fail(path, 'a non-empty list of { "name", "type" }', v);
    return new Schema(
      v.map((f, i) => {
        const o = obj(f, `${path}[${i}]`, ['name', 'type', 'nullable']);
        return new Field(str(o.name, `${path}[${i}].name`), csvType(o.type, `${path}[${i}].type`), optBool(o.nullable, `${path}[${i}].nullable`) ?? true);
      }),
    );
  }
  if (isObject(v) && Object.keys(v).length > 0) {
    return new Schema(Object.entries(v).map(([name, t]) => new Field(name, csvType(t, `${path}.${name}`), true)));
  }
  return fail(path, 'an object { "column": "type" } or a list of { "name", "type" }', v);
}

// ---- parsing ---------------------------------------------------------------------------------

function parseSource(v: unknown, path: string): SourceSpec {
  if (!isObject(v)) fail(path, 'an object with a "type"', v);
  const type = oneOf(v.type, `${path}.type`, ['ipc', 'parquet', 'csv', 'ndjson', 'demo'] as const);
  switch (type) {
    case 'ipc':
    case 'parquet':
    case 'ndjson': {
      const o = obj(v, path, ['type', 'path']);
      return { type, path: str(o.path, `${path}.path`) };
    }
    case 'csv': {
      const o = obj(v, path, ['type', 'path', 'header', 'delimiter', 'schema']);
      const delimiter = optStr(o.delimiter, `${path}.delimiter`);
      if (delimiter !== undefined && delimiter.length !== 1) fail(`${path}.delimiter`, 'a single character', delimiter);
      return {
        type,
        path: str(o.path, `${path}.path`),
        header: optBool(o.header, `${path}.header`),
        delimiter,
        schema: o.schema === undefined ? undefined : csvSchema(o.schema, `${path}.schema`),
      };
    }
    case 'demo': {
      const o = obj(v, path, ['type', 'dataset', 'rows', 'seed']);
      return {
        type,
        dataset: oneOf(o.dataset, `${path}.dataset`, DATASETS),
        rows: o.rows === undefined ? 10_000 : integer(o.rows, `${path}.rows`, 0),
        seed: o.seed === undefined ? undefined : integer(o.seed, `${path}.seed`, 0),
      };
    }
  }
}

const WINDOW_FNS = ['sum', 'count', 'avg', 'min', 'max'] as const;

function parseFrame(v: unknown, path: string): [Offset, Offset] {
  if (Array.isArray(v)) {
    if (v.length < 1 || v.length > 2) fail(path, '[preceding] or [preceding, following]', v);
    return [offset(v[0], `${path}[0]`), v.length > 1 ? offset(v[1], `${path}[1]`) : 0];
  }
  return [offset(v, path), 0];
}

function parseWindowColumn(v: unknown, path: string): WindowColumnSpec {
  const o = obj(v, path, ['fn', 'column', 'rows', 'range']);
  const fn = oneOf(o.fn, `${path}.fn`, WINDOW_FNS);
  const column = o.column === undefined ? undefined : str(o.column, `${path}.column`);
  if (column === undefined && fn !== 'count') fail(`${path}.column`, `a column name (only count may omit it)`, undefined);
  if (o.rows !== undefined && o.range !== undefined) throw new JobError(`${path}: give either "rows" or "range", not both`);
  const mode = o.rows !== undefined ? 'rows' : o.range !== undefined ? 'range' : undefined;
  if (mode === undefined) return { fn, column };
  const [preceding, following] = parseFrame(o[mode], `${path}.${mode}`);
  return { fn, column, frame: { mode, preceding, following } };
}

function parseOrderBy(v: unknown, path: string): unknown {
  if (typeof v === 'string') return str(v, path);
  const one = (x: unknown, p: string): unknown => {
    if (typeof x === 'string') return str(x, p);
    const o = obj(x, p, ['column', 'descending', 'nulls']);
    return {
      column: str(o.column, `${p}.column`),
      ...(o.descending !== undefined ? { descending: optBool(o.descending, `${p}.descending`) } : {}),
      ...(o.nulls !== undefined ? { nulls: oneOf(o.nulls, `${p}.nulls`, ['first', 'last'] as const) } : {}),
    };
  };
  if (Array.isArray(v)) {
    if (v.length === 0) fail(path, 'a column name or a non-empty list', v);
    return v.map((x, i) => one(x, `${path}[${i}]`));
  }
  return one(v, path);
}

const ASOF_KEYS = ['op', 'right', 'on', 'by', 'direction', 'tolerance', 'allowExactMatches', 'condition', 'how', 'nullsEqual', 'timeZone', 'suffix'];

function parseAsof(v: Record<string, unknown>, path: string, sources: Set<string>): StepSpec {
  const o = obj(v, path, ASOF_KEYS);
  let right: { source: string; steps: StepSpec[] };
  if (typeof o.right === 'string') right = { source: o.right, steps: [] };
  else {
    const r = obj(o.right, `${path}.right`, ['source', 'steps']);
    right = { source: str(r.source, `${path}.right.source`), steps: r.steps === undefined ? [] : parseSteps(r.steps, `${path}.right.steps`, sources) };
  }
  if (!sources.has(right.source)) {
    throw new JobError(`${path}.right: unknown source ${JSON.stringify(right.source)} (sources: ${[...sources].join(', ')})`);
  }
  const options: Record<string, unknown> = {};
  if (typeof o.on === 'string') options.on = o.on;
  else if (Array.isArray(o.on) && o.on.length === 2) options.on = [str(o.on[0], `${path}.on[0]`), str(o.on[1], `${path}.on[1]`)];
  else fail(`${path}.on`, 'a column name or [leftKey, rightKey]', o.on);
  if (o.by !== undefined) {
    if (typeof o.by === 'string') options.by = o.by;
    else if (Array.isArray(o.by) && o.by.length > 0) {
      options.by = o.by.map((b, i) => {
        if (typeof b === 'string') return str(b, `${path}.by[${i}]`);
        if (Array.isArray(b) && b.length === 2) return [str(b[0], `${path}.by[${i}][0]`), str(b[1], `${path}.by[${i}][1]`)];
        return fail(`${path}.by[${i}]`, 'a column name or [leftCol, rightCol]', b);
      });
    } else fail(`${path}.by`, 'a column name or a non-empty list', o.by);
  }
  if (o.direction !== undefined) options.direction = oneOf(o.direction, `${path}.direction`, ['backward', 'forward', 'nearest'] as const);
  if (o.tolerance !== undefined) {
    if (o.tolerance === 'unbounded') options.tolerance = Infinity;
    else options.tolerance = offset(o.tolerance, `${path}.tolerance`);
  }
  for (const k of ['allowExactMatches', 'nullsEqual'] as const) if (o[k] !== undefined) options[k] = optBool(o[k], `${path}.${k}`);
  if (o.condition !== undefined) options.condition = str(o.condition, `${path}.condition`);
  if (o.how !== undefined) options.how = oneOf(o.how, `${path}.how`, ['left', 'inner'] as const);
  for (const k of ['timeZone', 'suffix'] as const) if (o[k] !== undefined) options[k] = str(o[k], `${path}.${k}`);
  return { op: 'asofJoin', right, options };
}

const OPS = ['select', 'filter', 'withColumns', 'limit', 'explode', 'window', 'asofJoin'] as const;

function parseStep(v: unknown, path: string, sources: Set<string>): StepSpec {
  if (!isObject(v)) fail(path, 'an object with an "op"', v);
  const op = oneOf(v.op, `${path}.op`, OPS);
  switch (op) {
    case 'select': {
      const o = obj(v, path, ['op', 'exprs']);
      return { op, exprs: strs(o.exprs, `${path}.exprs`) };
    }
    case 'filter': {
      const o = obj(v, path, ['op', 'where']);
      return { op, where: str(o.where, `${path}.where`) };
    }
    case 'withColumns': {
      const o = obj(v, path, ['op', 'columns']);
      if (!isObject(o.columns) || Object.keys(o.columns).length === 0) fail(`${path}.columns`, 'an object { "name": "SQL expression" }', o.columns);
      const columns: Record<string, string> = {};
      for (const [k, x] of Object.entries(o.columns)) columns[k] = str(x, `${path}.columns.${k}`);
      return { op, columns };
    }
    case 'limit': {
      const o = obj(v, path, ['op', 'n']);
      return { op, n: integer(o.n, `${path}.n`, 0) };
    }
    case 'explode': {
      const o = obj(v, path, ['op', 'columns', 'outputColumn', 'ignoreEmptyAndNull', 'ordinality']);
      return {
        op,
        columns: strs(o.columns, `${path}.columns`),
        outputColumn: o.outputColumn === undefined ? undefined : strOrStrs(o.outputColumn, `${path}.outputColumn`),
        ignoreEmptyAndNull: optBool(o.ignoreEmptyAndNull, `${path}.ignoreEmptyAndNull`),
        ordinality: optStr(o.ordinality, `${path}.ordinality`),
      };
    }
    case 'window': {
      const o = obj(v, path, ['op', 'partitionBy', 'orderBy', 'columns']);
      if (!isObject(o.columns) || Object.keys(o.columns).length === 0) fail(`${path}.columns`, 'an object { "name": { "fn", "column", "rows" | "range" } }', o.columns);
      const columns: Record<string, WindowColumnSpec> = {};
      for (const [k, x] of Object.entries(o.columns)) columns[k] = parseWindowColumn(x, `${path}.columns.${k}`);
      return {
        op,
        partitionBy: o.partitionBy === undefined ? undefined : strOrStrs(o.partitionBy, `${path}.partitionBy`),
        orderBy: o.orderBy === undefined ? undefined : parseOrderBy(o.orderBy, `${path}.orderBy`),
        columns,
      };
    }
    case 'asofJoin':
      return parseAsof(v, path, sources);
  }
}

function parseSteps(v: unknown, path: string, sources: Set<string>): StepSpec[] {
  if (!Array.isArray(v)) fail(path, 'an array of steps', v);
  return v.map((s, i) => parseStep(s, `${path}[${i}]`, sources));
}

/** Validate a parsed JSON document as a job. */
export function parseJob(doc: unknown): JobSpec {
  const o = obj(doc, '$', ['sources', 'main', 'steps', 'output', 'description']);
  if (!isObject(o.sources) || Object.keys(o.sources).length === 0) fail('$.sources', 'an object of named sources', o.sources);
  const sources: Record<string, SourceSpec> = {};
  for (const [name, s] of Object.entries(o.sources)) sources[name] = parseSource(s, `$.sources.${name}`);
  const names = new Set(Object.keys(sources));
  const main = o.main === undefined ? Object.keys(sources)[0]! : str(o.main, '$.main');
  if (!names.has(main)) throw new JobError(`$.main: unknown source ${JSON.stringify(main)} (sources: ${[...names].join(', ')})`);
  const steps = o.steps === undefined ? [] : parseSteps(o.steps, '$.steps', names);
  let output: JobSpec['output'];
  if (o.output !== undefined) {
    const out = obj(o.output, '$.output', ['path', 'format']);
    output = {
      path: optStr(out.path, '$.output.path'),
      format: out.format === undefined ? undefined : oneOf(out.format, '$.output.format', FORMATS),
    };
  }
  return { sources, main, steps, output };
}

/** Read, parse and validate a job file; relative paths in it are resolved against its folder. */
export async function loadJob(file: string): Promise<{ job: JobSpec; dir: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new JobError(code === 'ENOENT' ? `job file not found: ${file}` : `cannot read job file ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new JobError(`job file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return { job: parseJob(doc), dir: dirname(resolve(file)) };
  } catch (err) {
    if (err instanceof JobError) err.message = `${file}: ${err.message}`;
    throw err;
  }
}

// ---- building the DataFrame ------------------------------------------------------------------

/** A source path relative to the job file; `-` (standard input) stays as it is. */
function inputPath(dir: string, p: string): string {
  return p === '-' ? p : resolve(dir, p);
}

function openSource(engine: Engine, spec: SourceSpec, dir: string): DataFrame {
  switch (spec.type) {
    case 'ipc':
      return engine.readIpc(inputPath(dir, spec.path));
    case 'parquet':
      return engine.readParquet(inputPath(dir, spec.path));
    case 'ndjson':
      return engine.readNdjson(inputPath(dir, spec.path));
    case 'csv':
      return engine.readCsv(inputPath(dir, spec.path), {
        ...(spec.header !== undefined ? { header: spec.header } : {}),
        ...(spec.delimiter !== undefined ? { delimiter: spec.delimiter } : {}),
        ...(spec.schema !== undefined ? { schema: spec.schema } : {}),
      });
    case 'demo':
      return engine.fromArrow(generate(spec.dataset, spec.rows, spec.seed));
  }
}

function windowFn(spec: WindowColumnSpec): WindowFn {
  const base = spec.fn === 'count' ? count(spec.column) : { sum, avg, min, max }[spec.fn](spec.column!);
  if (!spec.frame) return base;
  const { mode, preceding, following } = spec.frame;
  return mode === 'rows' ? base.rows(preceding, following) : base.range(preceding, following);
}

/** Re-raise a PlanError with the JSON path of the step that caused it. */
function atStep(err: unknown, path: string, op: string): unknown {
  if (err instanceof PlanError && !err.message.startsWith('$.')) {
    const e = new PlanError(err.code, `${path} (${op}): ${err.message}`, err.details, { cause: err });
    return e;
  }
  return err;
}

async function applySteps(engine: Engine, job: JobSpec, dir: string, df: DataFrame, steps: StepSpec[], base: string, cache: Map<string, DataFrame>): Promise<DataFrame> {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const path = `${base}[${i}]`;
    try {
      df = await applyStep(engine, job, dir, df, step, path, cache);
      await df.schema();
    } catch (err) {
      throw atStep(err, path, step.op);
    }
  }
  return df;
}

async function applyStep(engine: Engine, job: JobSpec, dir: string, df: DataFrame, step: StepSpec, path: string, cache: Map<string, DataFrame>): Promise<DataFrame> {
  switch (step.op) {
    case 'select':
      return df.select(...step.exprs.map((s) => expr(s)));
    case 'filter':
      return df.filter(step.where);
    case 'withColumns':
      return df.withColumns(Object.fromEntries(Object.entries(step.columns).map(([k, s]) => [k, expr(s)])));
    case 'limit':
      return df.limit(step.n);
    case 'explode':
      return df.explode(step.columns.map((s) => expr(s)), {
        ...(step.outputColumn !== undefined ? { outputColumn: step.outputColumn } : {}),
        ...(step.ignoreEmptyAndNull !== undefined ? { ignoreEmptyAndNull: step.ignoreEmptyAndNull } : {}),
        ...(step.ordinality !== undefined ? { ordinality: step.ordinality } : {}),
      });
    case 'window': {
      const columns: Record<string, WindowFn> = {};
      for (const [name, spec] of Object.entries(step.columns)) columns[name] = windowFn(spec);
      return df.window({
        ...(step.partitionBy !== undefined ? { partitionBy: step.partitionBy } : {}),
        ...(step.orderBy !== undefined ? { orderBy: step.orderBy as never } : {}),
        columns,
      } as never);
    }
    case 'asofJoin': {
      let right = sourceFrame(engine, job, dir, step.right.source, cache);
      right = await applySteps(engine, job, dir, right, step.right.steps, `${path}.right.steps`, cache);
      return df.asofJoin(right, step.options as never);
    }
  }
}

function sourceFrame(engine: Engine, job: JobSpec, dir: string, name: string, cache: Map<string, DataFrame>): DataFrame {
  let df = cache.get(name);
  if (!df) {
    try {
      df = openSource(engine, job.sources[name]!, dir);
    } catch (err) {
      throw atStep(err, `$.sources.${name}`, job.sources[name]!.type);
    }
    cache.set(name, df);
  }
  return df;
}

/** The job's DataFrame: the main source with every step applied (schemas checked step by step). */
export async function buildJob(engine: Engine, job: JobSpec, dir: string): Promise<DataFrame> {
  const cache = new Map<string, DataFrame>();
  const df = sourceFrame(engine, job, dir, job.main, cache);
  try {
    await df.schema();
  } catch (err) {
    throw atStep(err, `$.sources.${job.main}`, job.sources[job.main]!.type);
  }
  return applySteps(engine, job, dir, df, job.steps, '$.steps', cache);
}
