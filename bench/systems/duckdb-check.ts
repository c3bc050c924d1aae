/**
 * Result checks computed by DuckDB over a table or a Parquet file: the neutral reader of every
 * system's Parquet output in file-to-file runs (so a system is not checked by its own reader).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Check } from '../check.js';

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL.*)$/;
const INTEGER = /INT/;

export async function duckdbCheck(conn: DuckDBConnection, relation: string, columns: string[]): Promise<Check> {
  const types = new Map((await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${relation}`)).getRows().map((r) => [String(r[0]), String(r[1])]));
  const exprs = ['count(*)'];
  for (const c of columns) {
    const t = types.get(c);
    if (t === undefined) throw new Error(`result has no column ${JSON.stringify(c)} (columns: ${[...types.keys()].join(', ')})`);
    exprs.push(`count("${c}")`);
    if (NUMERIC.test(t)) exprs.push(INTEGER.test(t) ? `CAST(sum("${c}") AS HUGEINT)` : `sum("${c}")`);
  }
  const row = (await conn.runAndReadAll(`SELECT ${exprs.join(', ')} FROM ${relation}`)).getRows()[0]!;
  const check: Check = { rows: Number(row[0]), columns: {} };
  let k = 1;
  for (const c of columns) {
    const t = types.get(c)!;
    const col: Check['columns'][string] = { count: Number(row[k++]) };
    if (NUMERIC.test(t)) { const v = row[k++]; col.sum = v === null ? 0 : Number(v); col.int = INTEGER.test(t); }
    check.columns[c] = col;
  }
  return check;
}

export const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** opens an in-memory DuckDB, checks a Parquet file, closes it */
export async function checkParquetFile(path: string, columns: string[]): Promise<Check> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await db.connect();
  try {
    return await duckdbCheck(conn, `read_parquet(${sqlString(path)})`, columns);
  } finally {
    conn.closeSync(); db.closeSync();
  }
}
