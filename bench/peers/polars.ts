/**
 * Polars peer (nodejs-polars). Loading is not timed: numeric and timestamp columns go from the
 * Arrow value buffers to `pl.Series` typed-array constructors; Utf8 and List columns go through
 * an Arrow IPC buffer (`pl.readIPC`), which Polars reads natively (building them from JS strings
 * or nested arrays would take minutes at these sizes and gives the same frame).
 *
 * Timed queries are eager and end with a materialized Polars DataFrame (native memory), the
 * equivalent of Sluice's Arrow Table. Polars uses its default thread pool (POLARS_MAX_THREADS
 * unset = number of cores, 2 here).
 */
import { availableParallelism } from 'node:os';
import pl from 'nodejs-polars';
import { Table, tableToIPC, type Data } from 'apache-arrow';

export const polarsVersion = (): string => String(pl.version);
export const polarsThreads = (): string => process.env.POLARS_MAX_THREADS ?? `default pool (${availableParallelism()} cores)`;

type DF = ReturnType<typeof pl.DataFrame>;

/** Arrow table → Polars DataFrame (same names, same types) */
export function toPolars(table: Table): DF {
  const t = table;
  if (t.batches.length !== 1) {
    const ipc = tableToIPC(t, 'file');
    return pl.readIPC(Buffer.from(ipc.buffer, ipc.byteOffset, ipc.byteLength));
  }
  const cols = t.batches[0]!.data.children;
  const series: unknown[] = [];
  const viaIpc: number[] = [];
  t.schema.fields.forEach((f, i) => {
    const d: Data = cols[i]!; const id = String(d.type);
    const vals = d.values as ArrayLike<number>;
    if (d.nullCount > 0) { viaIpc.push(i); series.push(undefined); return; }
    if (id === 'Int64') series.push(pl.Series(f.name, d.values as BigInt64Array, pl.Int64));
    else if (id === 'Float64') series.push(pl.Series(f.name, d.values as Float64Array, pl.Float64));
    else if (id === 'Int32') series.push(pl.Series(f.name, d.values as Int32Array, pl.Int32));
    else if (id === 'Timestamp<MILLISECOND>') series.push(pl.Series(f.name, d.values as BigInt64Array, pl.Int64).cast(pl.Datetime('ms')));
    else if (id === 'Timestamp<NANOSECOND>') series.push(pl.Series(f.name, d.values as BigInt64Array, pl.Int64).cast(pl.Datetime('ns')));
    else { viaIpc.push(i); series.push(undefined); }
    void vals;
  });
  if (viaIpc.length) {
    const fields = viaIpc.map((i) => t.schema.fields[i]!);
    const ipc = tableToIPC(t.select(fields.map((f) => f.name)), 'file');
    const df = pl.readIPC(Buffer.from(ipc.buffer, ipc.byteOffset, ipc.byteLength));
    viaIpc.forEach((i) => { series[i] = df.getColumn(t.schema.fields[i]!.name); });
  }
  return pl.DataFrame(series as any);
}

export const WIDTHS = [3, 7, 30, 90, 180];

/** sort + rolling sums over each user, the frame materialized */
export function windowQuery(df: DF, widths = WIDTHS, sort = true): DF {
  return (sort ? df.sort(['user_id', 'create_ts']) : df).withColumns(
    ...widths.map((w) => pl.col('tokens').rollingSum({ windowSize: w, minPeriods: 1 }).over('user_id').alias(`tokens_${w}`)),
  );
}

/** join_asof needs both sides sorted by the key (within each `by` group; a global sort does it) */
export function asofQuery(trades: DF, quotes: DF, strategy: 'backward' | 'nearest', by = true): DF {
  return trades.sort('ts').joinAsof(quotes.sort('ts'), by
    ? { on: 'ts', by: 'sym', strategy, checkSortedness: false }
    : { on: 'ts', strategy, suffix: '_right' });
}

/** zip-style explode; a NULL or empty list gives one row with NULLs (like Sluice's default) */
export function explodeQuery(df: DF): DF {
  return df.explode(['items', 'quantities']);
}
