/**
 * DataFrame: an immutable logical plan plus the actions that run it (API.md "DataFrame").
 * Every method returns a new DataFrame; nothing runs until an action. Each action plans first
 * (all PlanErrors before any row is read), then runs with its own RunContext, whose spill
 * folder is removed whatever happens.
 */
import * as A from 'apache-arrow';
import { AbortError, ExecutionError, PlanError, SluiceError } from '../errors.js';
import type { Expr } from '../expr/builders.js';
import { writeCsvAtomic } from '../io/csv-write.js';
import { writeIpcAtomic } from '../io/ipc.js';
import type { IpcCompression } from '../io/ipc-codecs.js';
import { writeParquetAtomic, type ParquetCompression } from '../io/parquet.js';
import { writeParquetDataset } from '../io/parquet-dataset.js';
import { checkIpcWriteOptions, checkParquetWriteOptions } from './write-options.js';
import type { AsofOptions } from '../ops/asof-spec.js';
import type { WindowOptions } from '../ops/window-spec.js';
import type { ExplodeOptions, PlanNode, RunStats } from '../types/plan.js';
import type { Engine } from './engine.js';
import { runStage } from './execute.js';
import { explainStage, planStage, type Stage } from './planner.js';
import { RunContext } from './run-context.js';
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
    return this.with({ kind: 'select', input: this.plan, items });
  }

  withColumns(columns: Record<string, ExprLike>): DataFrame {
    if (!columns || typeof columns !== 'object') throw new PlanError('BAD_OPTION', 'withColumns: expected an object { name: expression }');
    return this.with({ kind: 'withColumns', input: this.plan, columns: Object.entries(columns) });
  }

  filter(predicate: ExprLike): DataFrame {
    return this.with({ kind: 'filter', input: this.plan, predicate });
  }

  limit(n: number): DataFrame {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new PlanError('BAD_OPTION', `limit: expected a non-negative integer, got ${String(n)}`);
    return this.with({ kind: 'limit', input: this.plan, n });
  }

  explode(column: ExprLike | ExprLike[], options: ExplodeOptions = {}): DataFrame {
    const columns = Array.isArray(column) ? column : [column];
    return this.with({ kind: 'explode', input: this.plan, columns, options });
  }

  window(options: WindowOptions): DataFrame {
    return this.with({ kind: 'window', input: this.plan, options });
  }

  asofJoin(right: DataFrame, options: AsofOptions): DataFrame {
    if (!(right instanceof DataFrame)) throw new PlanError('BAD_OPTION', 'asofJoin: the right side must be a DataFrame');
    if (right.engine !== this.engine) throw new PlanError('BAD_OPTION', 'asofJoin: both sides must come from the same Engine');
    return this.with({ kind: 'asofJoin', left: this.plan, right: right.plan, options });
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
    return (await this.execute(options)).table;
  }

  async execute(options: ActionOptions = {}): Promise<{ table: A.Table; stats: RunStats }> {
    return this.run(options, async (stream, stage, ctx) => {
      const batches: A.RecordBatch[] = [];
      for await (const b of stream) {
        batches.push(b);
        ctx.stats.rowsOut += b.numRows;
      }
      return batches.length > 0 ? new A.Table(stage.schema, batches) : new A.Table(stage.schema);
    }).then(({ value, stats }) => ({ table: value, stats }));
  }

  stream(options: ActionOptions = {}): AsyncIterable<A.RecordBatch> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        const stage = await planStage(self.plan);
        const ctx = new RunContext(self.engine.config, self.engine.pool, options.signal, self.engine.buffers);
        try {
          for await (const b of runStage(ctx, stage)) {
            ctx.stats.rowsOut += b.numRows;
            yield b;
          }
        } catch (err) {
          throw asSluiceError(err, options.signal);
        } finally {
          await ctx.close();
        }
      },
    };
  }

  async writeIpc(path: string, options: IpcWriteOptions = {}): Promise<RunStats> {
    const opts = checkIpcWriteOptions(options);
    return this.write(path, options, (schema, batches, signal) => writeIpcAtomic(path, schema, batches, { ...opts, signal }));
  }

  async writeParquet(path: string, options: ParquetWriteOptions = {}): Promise<RunStats> {
    const opts = checkParquetWriteOptions(options);
    return this.write(path, options, async (schema, batches, signal) => {
      if (opts.partitionBy.length > 0) return writeParquetDataset(path, schema, batches, { ...opts, signal });
      return writeParquetAtomic(path, schema, batches, { ...opts, signal });
    });
  }

  writeCsv(path: string, options: ActionOptions = {}): Promise<RunStats> {
    return this.write(path, options, (_schema, batches, signal) => writeCsvAtomic(path, batches, { signal }));
  }

  private async write(
    path: string,
    options: ActionOptions,
    writer: (schema: A.Schema, batches: AsyncIterable<A.RecordBatch>, signal?: AbortSignal) => Promise<unknown>,
  ): Promise<RunStats> {
    if (typeof path !== 'string' || path === '') throw new PlanError('BAD_OPTION', `write: expected a file path, got ${String(path)}`);
    const { stats } = await this.run(options, async (stream, stage, ctx) => {
      const counted = (async function* () {
        for await (const b of stream) {
          ctx.stats.rowsOut += b.numRows;
          yield b;
        }
      })();
      const t0 = performance.now();
      await writer(stage.schema, counted, options.signal);
      ctx.addPhase('write', performance.now() - t0);
    });
    return stats;
  }

  private async run<T>(
    options: ActionOptions,
    consume: (stream: AsyncIterable<A.RecordBatch>, stage: Stage, ctx: RunContext) => Promise<T>,
  ): Promise<{ value: T; stats: RunStats }> {
    const stage = await planStage(this.plan);
    if (options.signal?.aborted) throw new AbortError();
    const ctx = new RunContext(this.engine.config, this.engine.pool, options.signal, this.engine.buffers);
    try {
      const value = await consume(runStage(ctx, stage), stage, ctx);
      return { value, stats: ctx.stats };
    } catch (err) {
      throw asSluiceError(err, options.signal);
    } finally {
      await ctx.close();
      ctx.stats.peakTrackedBytes = Math.max(ctx.stats.peakTrackedBytes, ctx.budget.peak);
    }
  }
}

/** Every error leaving an action is a SluiceError; an aborted run is an AbortError. */
function asSluiceError(err: unknown, signal: AbortSignal | undefined): SluiceError {
  if (signal?.aborted && !(err instanceof AbortError)) return new AbortError('The run was aborted', {}, { cause: err });
  if (err instanceof SluiceError) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  return new ExecutionError('INTERNAL', `Internal error: ${e.message}`, {}, { cause: err });
}
