/**
 * DuckDB peer (@duckdb/node-api). Loading is not timed: each Arrow table goes through the
 * appender as 2048-row data chunks (numeric and timestamp columns copied from the Arrow value
 * buffers straight into the vectors, strings and lists set item by item).
 *
 * Timed queries run end to end inside DuckDB and MATERIALIZE every output row into a temporary
 * table (`CREATE OR REPLACE TEMP TABLE ... AS SELECT ...`), which is then dropped outside the
 * timing. Fetching 10M+ rows into JS values through node-api would dominate and measure the
 * binding, not the engine (node-api has no Arrow result API); `fetch: 'js'` instead streams the
 * result and copies every column into typed arrays (strings decoded), for reference.
 *
 * Threads: `SET threads = 2` (the instance is created with `threads: '2'`).
 */
import {
  DuckDBDataChunk, DuckDBInstance, listValue, version, type DuckDBAppender, type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { Data, Table } from 'apache-arrow';

export const duckdbVersion = (): string => version();

export interface DuckPeer {
  conn: DuckDBConnection;
  threads: number;
  close(): void;
}

export async function openDuck(threads = 2): Promise<DuckPeer> {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await instance.connect();
  const r = await conn.runAndReadAll(`SELECT current_setting('threads') AS t`);
  const t = Number(r.getRows()[0]![0]);
  return { conn, threads: t, close: () => { conn.closeSync(); instance.closeSync(); } };
}

// ---------------------------------------------------------------------------------------------
// loading

function sqlType(d: Data): string {
  const t = d.type; const id = String(t);
  if (id === 'Int64') return 'BIGINT';
  if (id === 'Int32') return 'INTEGER';
  if (id === 'Float64') return 'DOUBLE';
  if (id === 'Utf8') return 'VARCHAR';
  if (id === 'Timestamp<MILLISECOND>') return 'TIMESTAMP_MS';
  if (id === 'Timestamp<NANOSECOND>') return 'TIMESTAMP_NS';
  if (id.startsWith('List<')) return `${sqlType(d.children[0]!)}[]`;
  throw new Error(`duckdb peer: unsupported Arrow type ${id}`);
}

const decoder = new TextDecoder();

function valid(d: Data, i: number): boolean {
  if (!d.nullCount || !d.nullBitmap) return true;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3]! & (1 << (j & 7))) !== 0;
}

/** JS values of rows [from, to) of a non-list column, for item-by-item vectors */
function valuesOf(d: Data, from: number, to: number): DuckDBValue[] {
  const out: DuckDBValue[] = new Array(to - from);
  const id = String(d.type);
  if (id === 'Utf8') {
    const o = d.valueOffsets as Int32Array; const b = d.values as Uint8Array;
    for (let i = from; i < to; i++) out[i - from] = valid(d, i) ? decoder.decode(b.subarray(o[i]!, o[i + 1]!)) : null;
  } else if (id === 'Int64') {
    const v = d.values as BigInt64Array;
    for (let i = from; i < to; i++) out[i - from] = valid(d, i) ? v[i]! : null;
  } else if (id === 'Float64') {
    const v = d.values as Float64Array;
    for (let i = from; i < to; i++) out[i - from] = valid(d, i) ? v[i]! : null;
  } else throw new Error(`duckdb peer: no item path for ${id}`);
  return out;
}

export async function loadTable(conn: DuckDBConnection, name: string, table: Table): Promise<void> {
  const fields = table.schema.fields;
  const first = table.batches[0]!.data.children;
  await conn.run(`CREATE OR REPLACE TABLE ${name} (${fields.map((f, i) => `"${f.name}" ${sqlType(first[i]!)}`).join(', ')})`);
  const appender: DuckDBAppender = await conn.createAppender(name);
  const types = fields.map((_, i) => appender.columnType(i));
  const CHUNK = 2048;
  for (const batch of table.batches) {
    const cols = batch.data.children;
    for (let off = 0; off < batch.numRows; off += CHUNK) {
      const n = Math.min(CHUNK, batch.numRows - off);
      const chunk = DuckDBDataChunk.create(types, n);
      for (let c = 0; c < cols.length; c++) {
        const d = cols[c]!; const id = String(d.type);
        if (id.startsWith('List<')) {
          const o = d.valueOffsets as Int32Array; const child = d.children[0]!;
          const vals: DuckDBValue[] = new Array(n);
          for (let i = 0; i < n; i++) {
            const r = off + i;
            vals[i] = valid(d, r) ? listValue(valuesOf(child, o[r]!, o[r + 1]!)) : null;
          }
          chunk.setColumnValues(c, vals);
        } else if (id === 'Utf8') {
          chunk.setColumnValues(c, valuesOf(d, off, off + n));
        } else {
          // fixed width, no NULLs in the benchmark data: copy the value buffer into the vector
          if (d.nullCount > 0) { chunk.setColumnValues(c, valuesOf(d, off, off + n)); continue; }
          const vec = chunk.getColumnVector(c) as unknown as { items: BigInt64Array | Float64Array; flush(): void };
          (vec.items as Float64Array).set((d.values as Float64Array).subarray(off, off + n));
          vec.flush();
        }
      }
      appender.appendDataChunk(chunk);
    }
  }
  appender.flushSync();
  appender.closeSync();
}

// ---------------------------------------------------------------------------------------------
// queries

export type FetchMode = 'table' | 'js';

/**
 * Runs `select` and materializes its full result; returns the elapsed ms of the query alone
 * (the DROP of the output table is not timed) and the number of result rows.
 */
export async function timedQuery(peer: DuckPeer, select: string, fetch: FetchMode = 'table'): Promise<{ ms: number; rows: number }> {
  const { conn } = peer;
  if (fetch === 'table') {
    const t0 = performance.now();
    await conn.run(`CREATE OR REPLACE TEMP TABLE bench_out AS ${select}`);
    const ms = performance.now() - t0;
    const rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM bench_out`)).getRows()[0]![0]);
    await conn.run(`DROP TABLE bench_out`);
    return { ms, rows };
  }
  const t0 = performance.now();
  const result = await conn.stream(select);
  const cols: unknown[][] = [];
  let rows = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    for (let c = 0; c < chunk.columnCount; c++) {
      const v = chunk.getColumnVector(c) as unknown as { items?: ArrayLike<unknown> & { slice(): unknown } };
      (cols[c] ??= []).push(v.items ? v.items.slice() : chunk.getColumnValues(c));
    }
    rows += chunk.rowCount;
  }
  return { ms: performance.now() - t0, rows };
}

export const WIDTHS = [3, 7, 30, 90, 180];

export function windowSql(widths = WIDTHS): string {
  const cols = widths.map((w) => `sum(tokens) OVER (PARTITION BY user_id ORDER BY create_ts ROWS BETWEEN ${w - 1} PRECEDING AND CURRENT ROW) AS tokens_${w}`);
  return `SELECT *, ${cols.join(', ')} FROM serving_log`;
}

export function asofSql(by = true): string {
  return by
    ? `SELECT t.sym, t.ts, t.price, t.qty, q.bid, q.ask FROM trades t ASOF LEFT JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts`
    : `SELECT t.sym, t.ts, t.price, t.qty, q.sym AS sym_right, q.bid, q.ask FROM trades t ASOF LEFT JOIN quotes q ON t.ts >= q.ts`;
}

/** zips the two lists (DuckDB pads the shorter with NULL; ours are equal) and drops NULL/empty rows */
export function explodeSql(): string {
  return `SELECT id, unnest(items) AS item, unnest(quantities) AS quantity FROM orders`;
}
