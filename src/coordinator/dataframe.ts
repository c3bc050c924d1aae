/**
 * DataFrame: an immutable logical plan plus the actions that run it (API.md "DataFrame").
 * Every method returns a new DataFrame; nothing runs until an action. Each action plans first
 * (all PlanErrors before any row is read), then runs with its own RunContext, whose spill
 * folder is removed whatever happens.
 */
import { setMaxListeners } from 'node:events';
import * as A from 'apache-arrow';
import { AbortError, ExecutionError, PlanError, SluiceError } from '../errors.js';
import type { Expr } from '../expr/builders.js';
import { writeCsvAtomic } from '../io/csv-write.js';
import { writeIpcAtomic } from '../io/ipc.js';
import type { IpcCompression } from '../io/ipc-codecs.js';
import { writeParquetAtomic, type ParquetCompression } from '../io/parquet.js';
import { writeParquetDataset } from '../io/parquet-dataset.js';
import type { AsofOptions } from '../ops/asof-spec.js';
import type { WindowOptions } from '../ops/window-spec.js';
import { columnExprs, condition, exprList, filePath, rowCount } from '../options/args.js';
import { actionOptions, writeCsvOptions, writeIpcOptions, writeParquetOptions } from '../options/actions.js';
import { asofOptions } from '../options/asof.js';
import { explodeInputs, explodeOptions } from '../options/explode.js';
import { checkApi, describeValue } from '../options/kit.js';
import { windowOptions } from '../options/window.js';
import { aggregates, columnNames, joinOptions, renameMapping, sortKeys } from '../options/relational.js';
import type { WindowFn } from '../expr/aggregates.js';
import type { AggregateInput } from '../ops/groupby-spec.js';
import type { JoinOptions } from '../ops/join-spec.js';
import { nameList } from '../ops/key-types.js';
import type { SortKeyInput } from '../ops/sort-spec.js';
import type { ExplodeOptions, PlanNode, RunStats } from '../types/plan.js';
import type { Engine } from './engine.js';
import { progressTotals, runStage } from './execute.js';
import { explainStage, planStage, type Stage } from './planner.js';
import type { RunContext } from './run-context.js';
import { NO_TOTALS, type ProgressTotals } from './run-progress.js';
import type { Source } from './sources.js';

export interface ActionOptions {
  signal?: AbortSignal;
}

export interface IpcWriteOptions extends ActionOptions {
  /** 'file' (default) or 'stream' */
  format?: 'file' | 'stream';
  /** 'none' (default), 'lz4' (LZ4_FRAME) or 'zstd' */
  compression?: IpcCompression;
}

export interface ParquetWriteOptions extends ActionOptions {
  /** default 'zstd' */
  compression?: ParquetCompression;
  /** rows per row group (default 131072) */
  rowGroupSize?: number;
  /** columns whose values name Hive-style folders (`key=value/`) under `path` */
  partitionBy?: string | string[];
}

/** `stream()`'s batches; `stats` holds the RunStats of the last run once it has ended. */
export interface RunStream extends AsyncIterable<A.RecordBatch> {
  stats: RunStats | undefined;
}

type ExprLike = Expr | string;

export class DataFrame {
  private constructor(
    private readonly engine: Engine,
    /** The logical plan (read-only). */
    readonly plan: PlanNode,
  ) {}

  static fromSource(engine: Engine, source: Source): DataFrame {
    return new DataFrame(engine, { kind: 'source', source });
  }

  private with(plan: PlanNode): DataFrame {
    return new DataFrame(this.engine, plan);
  }

  // ---- transformations -------------------------------------------------------------------

  select(...exprs: Array<ExprLike | ExprLike[]>): DataFrame {
    const items = exprs.flat();
    if (items.length === 0) throw new PlanError('EMPTY_SELECT', 'select: expected at least one column or expression');
    checkApi(exprList(), items, 'select()', 'exprs');
    return this.with({ kind: 'select', input: this.plan, items });
  }

  withColumns(columns: Record<string, ExprLike>): DataFrame {
    const checked = checkApi(columnExprs(), columns, 'withColumns()', 'columns');
    return this.with({ kind: 'withColumns', input: this.plan, columns: Object.entries(checked) });
  }

  filter(predicate: ExprLike): DataFrame {
    return this.with({ kind: 'filter', input: this.plan, predicate: checkApi(condition(), predicate, 'filter()', 'predicate') });
  }

  limit(n: number): DataFrame {
    return this.with({ kind: 'limit', input: this.plan, n: checkApi(rowCount(), n, 'limit()', 'n') });
  }

  explode(column: ExprLike | ExprLike[], options: ExplodeOptions = {}): DataFrame {
    const inputs = checkApi(explodeInputs(), column, 'explode()', 'column');
    const checked = checkApi(explodeOptions, options, 'explode()');
    return this.with({ kind: 'explode', input: this.plan, columns: Array.isArray(inputs) ? inputs : [inputs], options: checked });
  }

  window(options: WindowOptions): DataFrame {
    return this.with({ kind: 'window', input: this.plan, options: checkApi(windowOptions, options, 'window()') });
  }

  asofJoin(right: DataFrame, options: AsofOptions): DataFrame {
    if (!(right instanceof DataFrame)) throw new PlanError('BAD_OPTION', `asofJoin(): \`right\`: Expected a DataFrame, got ${describeValue(right)}`, { option: 'right' });
    if (right.engine !== this.engine) throw new PlanError('BAD_OPTION', 'asofJoin: both sides must come from the same Engine');
    return this.with({ kind: 'asofJoin', left: this.plan, right: right.plan, options: checkApi(asofOptions, options, 'asofJoin()') });
  }

  // ---- relational verbs (API.md "Relational verbs") ---------------------------------------

  /** Global order by the keys (ASC NULLS FIRST, DESC NULLS LAST by default); stable. */
  sort(...keys: Array<SortKeyInput | SortKeyInput[]>): DataFrame {
    const checked = checkApi(sortKeys(), keys, 'sort()', 'keys').flat();
    if (checked.length === 0) throw new PlanError('NO_SORT_KEYS', "sort(): expected at least one sort key, e.g. sort('ts') or sort({ column: 'ts', descending: true })");
    return this.with({ kind: 'sort', input: this.plan, keys: checked });
  }

  /** Groups by the key columns; `.agg({...})` gives one row per group. No keys: the whole input. */
  groupBy(...keys: Array<string | string[]>): GroupedDataFrame {
    const names = nameList(checkApi(columnNames(), keys, 'groupBy()', 'keys'), 'groupBy()');
    return new GroupedDataFrame(names, (aggs) => this.with({ kind: 'groupBy', input: this.plan, keys: names, aggs }));
  }

  /** Aggregates the whole input to one row (`groupBy()` with no keys). */
  agg(aggs: Record<string, Aggregate>): DataFrame {
    return this.groupBy().agg(aggs);
  }

  /** Hash equi-join (how: inner by default). */
  join(right: DataFrame, options: JoinOptions): DataFrame {
    if (!(right instanceof DataFrame)) throw new PlanError('BAD_OPTION', `join(): \`right\`: Expected a DataFrame, got ${describeValue(right)}`, { option: 'right' });
    if (right.engine !== this.engine) throw new PlanError('BAD_OPTION', 'join: both sides must come from the same Engine');
    return this.with({ kind: 'join', left: this.plan, right: right.plan, options: checkApi(joinOptions, options, 'join()') });
  }

  /** The whole first row of each distinct tuple of the named columns (all columns when none). */
  distinct(...names: Array<string | string[]>): DataFrame {
    return this.with({ kind: 'distinct', input: this.plan, columns: nameList(checkApi(columnNames(), names, 'distinct()', 'names'), 'distinct()') });
  }

  rename(mapping: Record<string, string>): DataFrame {
    return this.with({ kind: 'rename', input: this.plan, mapping: Object.entries(checkApi(renameMapping(), mapping, 'rename()', 'mapping')) });
  }

  drop(...names: Array<string | string[]>): DataFrame {
    const list = nameList(checkApi(columnNames(), names, 'drop()', 'names'), 'drop()');
    if (list.length === 0) throw new PlanError('BAD_OPTION', 'drop(): expected at least one column name');
    return this.with({ kind: 'drop', input: this.plan, columns: list });
  }

  /** The rows of this DataFrame, then of each other in order (same column names and types). */
  union(...others: DataFrame[]): DataFrame {
    others.forEach((o, i) => {
      if (!(o instanceof DataFrame)) throw new PlanError('BAD_OPTION', `union(): \`others[${i}]\`: Expected a DataFrame, got ${describeValue(o)}`, { option: `others[${i}]` });
      if (o.engine !== this.engine) throw new PlanError('BAD_OPTION', 'union: every input must come from the same Engine');
    });
    return this.with({ kind: 'union', inputs: [this.plan, ...others.map((o) => o.plan)] });
  }

  // ---- actions ---------------------------------------------------------------------------

  async schema(): Promise<A.Schema> {
    return (await planStage(this.plan)).schema;
  }

  async explain(): Promise<string> {
    const stage = await planStage(this.plan);
    const { threads, partitions, memoryBudget } = this.engine.config;
    const head = `Sluice plan (threads: ${threads === 0 ? '0, inline' : threads}, partitions: ${partitions}, memory budget: ${memoryBudget} bytes)`;
    return [head, ...explainStage(stage, threads, partitions, '  ')].join('\n');
  }

  async collect(options: ActionOptions = {}): Promise<A.Table> {
    checkApi(actionOptions, options, 'collect()');
    return (await this.execute(options)).table;
  }

  async execute(options: ActionOptions = {}): Promise<{ table: A.Table; stats: RunStats }> {
    const { signal } = checkApi(actionOptions, options, 'execute()');
    return this.run(signal, true, async (stream, stage, ctx) => {
      const batches: A.RecordBatch[] = [];
      for await (const b of stream) {
        batches.push(b);
        ctx.delivered(b.numRows);
      }
      return batches.length > 0 ? new A.Table(stage.schema, batches) : new A.Table(stage.schema);
    }).then(({ value, stats }) => ({ table: value, stats }));
  }

  stream(options: ActionOptions = {}): RunStream {
    const { signal: userSignal } = checkApi(actionOptions, options, 'stream()');
    const self = this;
    const handle: RunStream = {
      stats: undefined,
      async *[Symbol.asyncIterator]() {
        const { stage, ctx } = await self.begin(userSignal);
        const { engine } = self;
        try {
          for await (const b of runStage(ctx, stage)) {
            ctx.delivered(b.numRows);
            yield b;
          }
        } catch (err) {
          throw asSluiceError(err, userSignal, engine.closeSignal);
        } finally {
          await ctx.close();
          handle.stats = ctx.stats;
        }
      },
    };
    return handle;
  }

  /** `format` 'file' (default) or 'stream'; `compression` 'none' (default), 'lz4' (LZ4_FRAME) or 'zstd'. */
  async writeIpc(path: string, options: IpcWriteOptions = {}): Promise<RunStats> {
    const { signal, format, compression } = checkApi(writeIpcOptions, options, 'writeIpc()');
    return this.write(path, 'writeIpc()', signal, (schema, batches, s) => writeIpcAtomic(path, schema, batches, { signal: s, format, compression }));
  }

  /**
   * `compression` 'zstd' (default), 'snappy', 'gzip', 'brotli', 'lz4' or 'none'; `rowGroupSize`
   * rows per row group; `partitionBy` writes Hive folders (`key=value/part-00000.parquet`).
   */
  async writeParquet(path: string, options: ParquetWriteOptions = {}): Promise<RunStats> {
    const { signal, compression, rowGroupSize, partitionBy } = checkApi(writeParquetOptions, options, 'writeParquet()');
    const keys = partitionBy === undefined ? [] : typeof partitionBy === 'string' ? [partitionBy] : partitionBy;
    const opts = { compression, ...(rowGroupSize !== undefined ? { rowGroupRows: rowGroupSize } : {}) };
    return this.write(path, 'writeParquet()', signal, (schema, batches, s) =>
      keys.length > 0 ? writeParquetDataset(path, schema, batches, { ...opts, partitionBy: keys, signal: s }) : writeParquetAtomic(path, schema, batches, { ...opts, signal: s }),
    );
  }

  writeCsv(path: string, options: ActionOptions = {}): Promise<RunStats> {
    const { signal } = checkApi(writeCsvOptions, options, 'writeCsv()');
    return this.write(path, 'writeCsv()', signal, (_schema, batches, s) => writeCsvAtomic(path, batches, { signal: s }));
  }

  private async write(
    path: string,
    where: string,
    signal: AbortSignal | undefined,
    writer: (schema: A.Schema, batches: AsyncIterable<A.RecordBatch>, signal: AbortSignal) => Promise<unknown>,
  ): Promise<RunStats> {
    checkApi(filePath(), path, where, 'path');
    const { stats } = await this.run(signal, false, async (stream, stage, ctx) => {
      const counted = (async function* () {
        for await (const b of stream) {
          yield b;
          // counted once the writer has taken the batch (and asks for the next one)
          ctx.delivered(b.numRows);
        }
      })();
      await ctx.clock.during('write', writer(stage.schema, counted, ctx.signal!));
    });
    return stats;
  }

  /**
   * Plans, then sets up the run. The run obeys the caller's signal and the engine's close(): a
   * closed engine refuses new runs (PlanError ENGINE_CLOSED); one closed while a run is being
   * planned or is running ends that run with an AbortError.
   */
  private async begin(userSignal: AbortSignal | undefined): Promise<{ stage: Stage; ctx: RunContext }> {
    const { engine } = this;
    engine.assertOpen();
    const signal = userSignal ? AbortSignal.any([userSignal, engine.closeSignal]) : engine.closeSignal;
    // Every task in flight listens to it (one per thread and more): not a leak to warn about.
    setMaxListeners(0, signal);
    let stage: Stage;
    let totals: ProgressTotals;
    try {
      stage = await planStage(this.plan);
      // Sources' sizes are only looked up when someone listens.
      totals = engine.config.onProgress ? await progressTotals(stage) : NO_TOTALS;
    } catch (err) {
      throw engine.closeSignal.aborted ? asSluiceError(err, userSignal, engine.closeSignal) : err;
    }
    if (signal.aborted) throw asSluiceError(new AbortError(), userSignal, engine.closeSignal);
    const ctx = engine.runContext(signal);
    ctx.progress.plan(totals);
    return { stage, ctx };
  }

  /** `collected`: `consume` keeps every batch (the result is the caller's memory; see runStage). */
  private async run<T>(
    userSignal: AbortSignal | undefined,
    collected: boolean,
    consume: (stream: AsyncIterable<A.RecordBatch>, stage: Stage, ctx: RunContext) => Promise<T>,
  ): Promise<{ value: T; stats: RunStats }> {
    const { engine } = this;
    const { stage, ctx } = await this.begin(userSignal);
    // A consumer that fails mid-stream (a writer error) must still end the upstream readers
    // (their files, decoder threads): return the iterator whatever happens.
    const it = runStage(ctx, stage, collected)[Symbol.asyncIterator]();
    try {
      const value = await consume({ [Symbol.asyncIterator]: () => it }, stage, ctx);
      return { value, stats: ctx.stats };
    } catch (err) {
      throw asSluiceError(err, userSignal, engine.closeSignal);
    } finally {
      await it.return?.(undefined).catch(() => {});
      await ctx.close();
    }
  }
}

/** An aggregate for groupBy().agg(): sum/count/avg/min/max/first/last/countDistinct. */
export type Aggregate = WindowFn;

/** `df.groupBy(...keys)`: waits for its aggregates. */
export class GroupedDataFrame {
  constructor(
    readonly keys: readonly string[],
    private readonly make: (aggs: Array<[string, AggregateInput]>) => DataFrame,
  ) {}

  /** One row per distinct key tuple: the keys, then the aggregates in the object's order. */
  agg(aggs: Record<string, Aggregate> = {}): DataFrame {
    const checked = checkApi(aggregates(), aggs, 'agg()', 'aggs');
    return this.make(Object.entries(checked));
  }
}

/** Every error leaving an action is a SluiceError; an aborted run (or a closed engine) an AbortError. */
function asSluiceError(err: unknown, signal: AbortSignal | undefined, closeSignal: AbortSignal): SluiceError {
  if (closeSignal.aborted) {
    const reason: unknown = closeSignal.reason;
    if (err === reason) return err as AbortError;
    return new AbortError(reason instanceof AbortError ? reason.message : 'The engine was closed while the run was in progress', {}, { cause: err });
  }
  if (signal?.aborted && !(err instanceof AbortError)) return new AbortError('The run was aborted', {}, { cause: err });
  if (err instanceof SluiceError) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  return new ExecutionError('INTERNAL', `Internal error: ${e.message}`, {}, { cause: err });
}
