/**
 * Inputs for the memory-budget tests (memory-budget, preserve-order-budget): a serving log for
 * windows and quotes and trades for asofJoin, generated from fixed seeds, and Arrow IPC files of
 * them in 4k-row batches, as a reader meets them in files.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { rng } from './random.js';
import { rebatch } from './tables.js';

export type ServingLogColumn = 'rid' | 'user_id' | 'create_ts' | 'tokens' | 'spend' | 'tag';

/**
 * n rows, in the order of `columns`: a unique row id, n/50 users, unsorted timestamps, 5% NULL
 * tokens, a spend amount and a string tag (the last two from the same draw).
 */
export function servingLog(n: number, columns: readonly ServingLogColumn[]): A.Table {
  const r = rng(7);
  const user = new Int32Array(n);
  const ts = new BigInt64Array(n);
  const tokens: Array<bigint | null> = [];
  const spend = new Float64Array(n);
  const tag: string[] = [];
  for (let i = 0; i < n; i++) {
    user[i] = Math.floor(r() * (n / 50));
    ts[i] = BigInt(Math.floor(r() * 1e9));
    tokens.push(r() < 0.05 ? null : BigInt(Math.floor(r() * 1000)));
    const x = r();
    spend[i] = Math.round(x * 1e4) / 100;
    tag.push(`t${Math.floor(x * 1000)}`);
  }
  const all: Record<ServingLogColumn, () => A.Vector> = {
    rid: () => A.makeVector(Int32Array.from({ length: n }, (_, i) => i)),
    user_id: () => A.makeVector(user),
    create_ts: () => A.makeVector({ type: new A.TimestampMillisecond(), data: ts }),
    tokens: () => A.vectorFromArray(tokens, new A.Int64()),
    spend: () => A.makeVector(spend),
    tag: () => A.vectorFromArray(tag, new A.Utf8()),
  };
  return new A.Table(Object.fromEntries(columns.map((c) => [c, all[c]()])));
}

/**
 * n trades (sym, ts in µs, price) and n quotes (sym, ts, bid) over 500 symbols; with `rowIds`,
 * a unique id first (`rid` for trades, `qid` for quotes).
 */
export function quotesAndTrades(n: number, { rowIds }: { rowIds: boolean }): { trades: A.Table; quotes: A.Table } {
  const r = rng(11);
  const mk = (rows: number, price: string, id: string) => {
    const sym = new Int32Array(rows);
    const ts = new BigInt64Array(rows);
    const v = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      sym[i] = Math.floor(r() * 500);
      ts[i] = BigInt(Math.floor(r() * 1e8));
      v[i] = r() * 100;
    }
    return new A.Table({
      ...(rowIds ? { [id]: A.makeVector(Int32Array.from({ length: rows }, (_, i) => i)) } : {}),
      sym: A.makeVector(sym),
      ts: A.makeVector({ type: new A.TimestampMicrosecond(), data: ts }),
      [price]: A.makeVector(v),
    });
  };
  return { trades: mk(n, 'price', 'rid'), quotes: mk(n, 'bid', 'qid') };
}

/** `t` written to `dir/name` as an Arrow IPC file in batches of 4096 rows; returns the path. */
export function ipcFile(dir: string, name: string, t: A.Table): string {
  const p = join(dir, name);
  writeFileSync(p, A.tableToIPC(rebatch(t, 4096), 'file'));
  return p;
}
