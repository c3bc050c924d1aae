/**
 * Job files (`sluice run job.json`, `sluice explain job.json`; documented in README-jobs.md).
 *
 * `loadJob` reads the file and validates it against the job schema (job-schema.ts, built from the
 * API's own option schemas), naming the JSON path of a problem and the closest known key
 * (`$.steps[2].columns.tokens_7d.rows: …`) as a JobError (exit code 2). `buildJob` turns the
 * validated job into a DataFrame through the public API only; a PlanError raised by a step
 * (at the call, or when its schema is derived) is re-raised with the step's JSON path.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  avg, count, countDistinct, cumeDist, denseRank, expr, first, lag, last, lead, max, min, nthValue, ntile, percentRank, PlanError, rank,
  rowNumber, stddev, stddevPop, sum, variance, varPop, type DataFrame, type Engine, type WindowFn,
} from '../index.js';
import { firstProblem, jsonPath, suggest } from '../options/kit.js';
import { generate } from './demo-data.js';
import { JobError } from './errors.js';
import { formatOfPath } from '../io/dataset.js';
import { inputName, STDIN_NAME } from '../io/input-errors.js';
import { jobSchema, type AggColumnSpec, type OutputSpec, type SourceSpec, type StepSpec, type WindowColumnSpec } from './job-schema.js';

export { JobError };
export { FORMATS, type OutputFormat, type OutputSpec, type SourceSpec, type StepSpec } from './job-schema.js';

// ---- checking a job --------------------------------------------------------------------------

export interface JobSpec {
  sources: Record<string, SourceSpec>;
  main: string;
  steps: StepSpec[];
  output?: OutputSpec | undefined;
}

/** `$.steps[0].n: expected an integer >= 0, got -1 (number)` */
function problem(path: readonly PropertyKey[], message: string): JobError {
  return new JobError(`${jsonPath(path)}: ${message.replace(/^Expected /, 'expected ')}`);
}

function unknownSource(path: readonly PropertyKey[], name: string, sources: string[]): JobError {
  const hint = suggest(name, sources);
  return problem(path, `unknown source ${JSON.stringify(name)}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''} (sources: ${sources.join(', ')})`);
}

/** The other inputs of a step (ASOF / join right sides, union inputs) with their JSON paths. */
function sidesOf(step: StepSpec, at: PropertyKey[]): Array<{ side: { source: string; steps: StepSpec[] }; path: PropertyKey[]; stepsPath: PropertyKey[] }> {
  const one = (r: string | { source: string; steps?: StepSpec[] | undefined }, base: PropertyKey[]) =>
    typeof r === 'string' ? { side: { source: r, steps: [] }, path: base, stepsPath: [...base, 'steps'] } : { side: { source: r.source, steps: r.steps ?? [] }, path: [...base, 'source'], stepsPath: [...base, 'steps'] };
  if (step.op === 'asofJoin' || step.op === 'join') return [one(step.right, [...at, 'right'])];
  if (step.op === 'union') return Array.isArray(step.others) ? step.others.map((o, k) => one(o, [...at, 'others', k])) : [one(step.others, [...at, 'others'])];
  return [];
}

/** Every other input of a step (right sides, union inputs) names a source of the job. */
function checkRightSources(steps: StepSpec[], base: PropertyKey[], sources: string[]): void {
  steps.forEach((step, i) => {
    for (const { side, path, stepsPath } of sidesOf(step, [...base, i])) {
      if (!sources.includes(side.source)) throw unknownSource(path, side.source, sources);
      checkRightSources(side.steps, stepsPath, sources);
    }
  });
}

/**
 * Standard input can be read only once: a source reading it may be used by one place in the
 * job (the main source, a right side, a union input). Else the second scan would meet an
 * exhausted stream at run time (the engine's SOURCE_CONSUMED, worded for API users).
 */
function checkReadOnce(job: JobSpec, source: string): void {
  const uses: string[] = job.main === source ? ['the main source'] : [];
  const walk = (steps: StepSpec[], base: PropertyKey[]): void =>
    steps.forEach((step, i) => {
      for (const { side, path, stepsPath } of sidesOf(step, [...base, i])) {
        if (side.source === source) uses.push(jsonPath(path));
        walk(side.steps, stepsPath);
      }
    });
  walk(job.steps, ['steps']);
  if (uses.length > 1) {
    throw new JobError(`source ${source} reads ${STDIN_NAME}, which can be read only once, but the job uses it ${uses.length} times (${uses.join(', ')}): write ${STDIN_NAME} to a file first and give that file's path`);
  }
}

/** Validate a parsed JSON document as a job (src/cli/job-schema.ts), naming the JSON path of a problem. */
export function parseJob(doc: unknown): JobSpec {
  const r = firstProblem(jobSchema, doc, 'key');
  if (!r.ok) throw problem(r.problem.path, r.problem.message);
  const job = r.value;
  const sources = Object.keys(job.sources);
  const main = job.main ?? sources[0]!;
  if (!sources.includes(main)) throw unknownSource(['main'], main, sources);
  const steps = job.steps ?? [];
  checkRightSources(steps, ['steps'], sources);
  const typed: Record<string, SourceSpec> = {};
  for (const [name, spec] of Object.entries(job.sources)) typed[name] = spec.type === undefined ? typedByExtension(name, spec.path) : spec;
  return { sources: typed, main, steps, output: job.output };
}

/** A `{ "path" }` source: the format its extension names (as DuckDB and Polars read a path). */
function typedByExtension(name: string, path: string): SourceSpec {
  const type = formatOfPath(path);
  if (type === undefined) {
    throw problem(['sources', name], `cannot tell the format of ${JSON.stringify(path)} from its extension (.arrow .arrows .feather .ipc, .parquet .pq, .csv .tsv, .ndjson .jsonl .json, and their .gz / .zst forms): add "type": "ipc", "parquet", "csv" or "ndjson"`);
  }
  return { type, path };
}

/**
 * Read, parse and validate a job file; relative paths in it are resolved against its folder.
 * `-` reads the job from `stdin` (paths relative to the working folder; no source may then
 * read standard input too).
 */
export async function loadJob(file: string, stdin?: NodeJS.ReadableStream): Promise<{ job: JobSpec; dir: string }> {
  let text: string;
  try {
    text = file === '-' && stdin ? await readAll(stdin) : await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new JobError(code === 'ENOENT' ? `job file not found: ${file}` : `cannot read job file ${file}: ${(err as Error).message}`);
  }
  // Editors on Windows save UTF-8 with a byte-order mark; JSON.parse refuses it
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new JobError(`job file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return namingJobFile(file, () => {
    const job = parseJob(doc);
    const readers = Object.entries(job.sources).filter(([, s]) => 'path' in s && s.path === '-').map(([name]) => name);
    if (file === '-' && readers.length > 0) throw new JobError(`source ${readers[0]} reads ${STDIN_NAME}, which holds the job itself: give it a file`);
    if (readers.length > 1) throw new JobError(`sources ${readers.join(' and ')} both read ${STDIN_NAME}: only one source can`);
    if (readers.length === 1) checkReadOnce(job, readers[0]!);
    return { job, dir: file === '-' ? process.cwd() : dirname(resolve(file)) };
  });
}

/**
 * `fn()`, its JobErrors (a problem with the job file's content: when it is loaded, and when
 * its output is planned) naming the file first: `job.json: $.output.format: …`.
 */
export function namingJobFile<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof JobError) err.message = `${inputName(file)}: ${err.message}`;
    throw err;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** A frame offset or tolerance from JSON: integers written as strings become bigints (exact beyond 2^53). */
function exact(v: number | string): number | bigint | string {
  return typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? BigInt(v.trim()) : v;
}

// ---- building the DataFrame ------------------------------------------------------------------

/** A source path relative to the job file; `-` (standard input) stays as it is. */
function inputPath(dir: string, p: string): string {
  return p === '-' ? p : resolve(dir, p);
}

function openSource(engine: Engine, spec: SourceSpec, dir: string): DataFrame {
  switch (spec.type) {
    case 'ipc': {
      const { type: _t, path, ...options } = spec;
      return engine.readIpc(inputPath(dir, path), options);
    }
    case 'parquet': {
      const { type: _t, path, ...options } = spec;
      return engine.readParquet(inputPath(dir, path), options);
    }
    case 'csv': {
      const { type: _t, path, ...options } = spec;
      return engine.readCsv(inputPath(dir, path), options);
    }
    case 'ndjson': {
      const { type: _t, path, ...options } = spec;
      return engine.readNdjson(inputPath(dir, path), options);
    }
    case 'demo':
      return engine.fromArrow(generate(spec.dataset, spec.rows ?? 10_000, spec.seed));
  }
}

const list = (v: string | string[]): string[] => (typeof v === 'string' ? [v] : v);

function windowFn(spec: WindowColumnSpec): WindowFn {
  const c = spec.column!;
  const n = spec.n === undefined ? undefined : typeof spec.n === 'string' ? BigInt(spec.n.trim()) : spec.n;
  let fn: WindowFn;
  switch (spec.fn) {
    case 'count':
      fn = count(spec.column);
      break;
    case 'nthValue':
      fn = nthValue(c, n as number | bigint);
      break;
    case 'lag':
    case 'lead':
      fn = (spec.fn === 'lag' ? lag : lead)(c, n ?? 1, spec.default);
      break;
    case 'ntile':
      fn = ntile(n as number | bigint);
      break;
    case 'rowNumber':
    case 'rank':
    case 'denseRank':
    case 'percentRank':
    case 'cumeDist':
      fn = { rowNumber, rank, denseRank, percentRank, cumeDist }[spec.fn]();
      break;
    default:
      fn = { sum, avg, min, max, stddev, variance, stddevPop, varPop, countDistinct, first, last }[spec.fn](c);
  }
  const mode = spec.rows !== undefined ? 'rows' : spec.range !== undefined ? 'range' : spec.groups !== undefined ? 'groups' : null;
  if (mode !== null) {
    const frame = spec[mode]!;
    const [preceding, following = 0] = Array.isArray(frame) ? frame : [frame];
    fn = fn[mode](exact(preceding!), exact(following));
  }
  if (spec.minPeriods !== undefined) fn = fn.minPeriods(spec.minPeriods);
  if (spec.ignoreNulls) fn = fn.ignoreNulls();
  return fn;
}

/** A groupBy aggregate from its JSON form, through the same builders as the API. */
function aggFn(spec: AggColumnSpec): WindowFn | { fn: string; column: string | null; frame: null; ignoreNulls: true } {
  const built = spec.fn === 'count' ? count(spec.column) : { sum, avg, min, max, first, last, countDistinct }[spec.fn](spec.column!);
  // .ignoreNulls() as a plain spec: groupBy reads it (first/last only) whatever the builders offer.
  return spec.ignoreNulls ? { ...built.spec, frame: null, ignoreNulls: true } : built;
}

/** Re-raise a PlanError with the JSON path of the step that caused it. */
function atStep(err: unknown, path: string, op: string): unknown {
  if (err instanceof PlanError && !err.message.startsWith('$.')) {
    return new PlanError(err.code, `${path} (${op}): ${err.message}`, err.details, { cause: err });
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

/** One step through the public API; a step's options are the method's options, passed on as they are. */
async function applyStep(engine: Engine, job: JobSpec, dir: string, df: DataFrame, step: StepSpec, path: string, cache: Map<string, DataFrame>): Promise<DataFrame> {
  switch (step.op) {
    case 'select':
      return df.select(...list(step.exprs).map((s) => expr(s)));
    case 'filter':
      return df.filter(step.where);
    case 'withColumns':
      return df.withColumns(Object.fromEntries(Object.entries(step.columns).map(([k, s]) => [k, expr(s)])));
    case 'limit':
      return df.limit(step.n);
    case 'explode': {
      const { op: _op, columns, ...options } = step;
      return df.explode(list(columns).map((s) => expr(s)), options);
    }
    case 'window': {
      const { op: _op, columns, ...options } = step;
      return df.window({ ...options, columns: Object.fromEntries(Object.entries(columns).map(([name, spec]) => [name, windowFn(spec)])) });
    }
    case 'asofJoin': {
      const { op: _op, right: _r, tolerance, ...options } = step;
      const rightDf = await sideFrame(engine, job, dir, sidesOf(step, [])[0]!.side, `${path}.right.steps`, cache);
      return df.asofJoin(rightDf, {
        ...options,
        ...(tolerance !== undefined ? { tolerance: tolerance === 'unbounded' ? Infinity : typeof tolerance === 'bigint' ? tolerance : exact(tolerance) } : {}),
      });
    }
    case 'sort':
      return df.sort(...(Array.isArray(step.by) ? step.by : [step.by]));
    case 'groupBy':
      return df.groupBy(...list(step.by ?? [])).agg(Object.fromEntries(Object.entries(step.aggs).map(([name, spec]) => [name, aggFn(spec) as WindowFn])));
    case 'join': {
      const { op: _op, right: _r, ...options } = step;
      return df.join(await sideFrame(engine, job, dir, sidesOf(step, [])[0]!.side, `${path}.right.steps`, cache), options);
    }
    case 'distinct':
      return df.distinct(...list(step.columns ?? []));
    case 'rename':
      return df.rename(step.columns);
    case 'drop':
      return df.drop(...list(step.columns));
    case 'union': {
      const others: DataFrame[] = [];
      for (const [k, { side }] of sidesOf(step, []).entries()) others.push(await sideFrame(engine, job, dir, side, Array.isArray(step.others) ? `${path}.others[${k}].steps` : `${path}.others.steps`, cache));
      return df.union(...others);
    }
  }
}

/** Another input of a step: its source with its own steps applied. */
async function sideFrame(engine: Engine, job: JobSpec, dir: string, side: { source: string; steps: StepSpec[] }, path: string, cache: Map<string, DataFrame>): Promise<DataFrame> {
  return applySteps(engine, job, dir, sourceFrame(engine, job, dir, side.source, cache), side.steps, path, cache);
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
