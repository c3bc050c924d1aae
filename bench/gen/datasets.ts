/**
 * The benchmark data sets, generated batch by batch (2^20 rows per record batch, as
 * ../shared/peers does) from a seeded PRNG, so any size streams to disk in bounded memory.
 *
 * Shapes follow ../shared/peers/gen.mjs (same file names, column names and types, so the
 * harness also runs on that folder with `--data`):
 *  - window:  window.ipc  user_id int64 (rows/100 users unless set; `hot` puts that fraction
 *             of the rows on user 0), create_ts int64 ms (unique, unsorted), tokens,
 *             tokens2..tokens6 int64 0..9999 (5% NULL each)
 *  - market:  trades.ipc  sym int32 (1,000 symbols) or utf8 'S0000'..'S0999', ts int64 µs
 *             (uniform over the quotes' span), price float64; quotes.ipc  sym, ts (unique,
 *             unsorted, mean gap 8 ms), bid float64. `hot` puts that fraction of both sides on
 *             symbol 0.
 *  - orders:  explode.ipc id int64, items list<utf8> ('item_0'..'item_49999'), quantities
 *             list<int64> (1..100), label utf8; 2% both lists NULL, 3% both empty, else
 *             both of length 1..16
 *  - join:    fact.ipc id int64, key int64 uniform in [0, 1.1 x dim rows), skey utf8
 *             ('k' + 8 digits of key), amount float64; dim.ipc key (a permutation of
 *             0..dim rows - 1), skey, attr int64
 *  - distinct: distinct.ipc k int64 uniform in [0, distinct), v int64 and s utf8 functions
 *             of k: `distinct()` of the whole rows leaves about `distinct` rows
 */
import { type RecordBatch } from 'apache-arrow';
import { Rng, Scatter } from './rng.js';
import {
  ascii, batchOf, float64Col, int32Col, int64Col, listCol, setI64, Utf8Builder, Validity,
} from './arrow-build.js';

export const BATCH_ROWS = 1 << 20;

export type DatasetSpec =
  | { kind: 'window'; rows: number; users?: number; hot?: number; seed?: number }
  | { kind: 'market'; rows: number; rightRows?: number; sym: 'int' | 'str'; hot?: number; seed?: number }
  | { kind: 'orders'; rows: number; seed?: number }
  | { kind: 'join'; rows: number; dimRows: number; seed?: number }
  | { kind: 'distinct'; rows: number; distinct: number; seed?: number };

/** one generated file: its name in the data set folder and its batches, produced lazily */
export interface GeneratedFile {
  name: string;
  rows: number;
  /** list columns cannot go to CSV */
  csv: boolean;
  batches(): Iterable<RecordBatch>;
}

function* batched(rows: number, make: (start: number, n: number, k: number) => RecordBatch): Iterable<RecordBatch> {
  for (let start = 0, k = 0; start < rows; start += BATCH_ROWS, k++) yield make(start, Math.min(BATCH_ROWS, rows - start), k);
}

const pick = (rng: Rng, n: number, hot: number): number => (hot > 0 && rng.float() < hot ? 0 : rng.int(n));

// ---------------------------------------------------------------------------------------------

const T0_MS = 1_700_000_000_000;
const MEASURES = ['tokens', 'tokens2', 'tokens3', 'tokens4', 'tokens5', 'tokens6'];

function windowFile(s: Extract<DatasetSpec, { kind: 'window' }>): GeneratedFile {
  const seed = s.seed ?? 1; const users = s.users ?? Math.max(1, Math.round(s.rows / 100)); const hot = s.hot ?? 0;
  const scatter = new Scatter(s.rows, seed);
  const nullable = { user_id: false, create_ts: false, ...Object.fromEntries(MEASURES.map((m) => [m, true])) };
  return {
    name: 'window.ipc', rows: s.rows, csv: true,
    batches: () => batched(s.rows, (start, n, k) => {
      const rng = new Rng(seed, k);
      const uid = new BigInt64Array(n); const uw = new Int32Array(uid.buffer);
      const ts = new BigInt64Array(n); const tw = new Int32Array(ts.buffer);
      for (let i = 0; i < n; i++) {
        uw[2 * i] = pick(rng, users, hot);
        setI64(tw, i, T0_MS + scatter.at(start + i) * 1000 + rng.int(1000));
      }
      const cols: Record<string, ReturnType<typeof int64Col>> = { user_id: int64Col(uid), create_ts: int64Col(ts) };
      for (const m of MEASURES) {
        const v = new BigInt64Array(n); const w = new Int32Array(v.buffer); const valid = new Validity(n);
        for (let i = 0; i < n; i++) { const ok = rng.float() >= 0.05; valid.set(i, ok); if (ok) w[2 * i] = rng.int(10_000); }
        cols[m] = int64Col(v, valid);
      }
      return batchOf(cols, nullable);
    }),
  };
}

// ---------------------------------------------------------------------------------------------

const T0_US = 1_700_000_000_000_000;
const QUOTE_GAP_US = 8000;
const SYMBOLS = 1000;
const S_PREFIX = ascii('S');

function marketFiles(s: Extract<DatasetSpec, { kind: 'market' }>): GeneratedFile[] {
  const seed = s.seed ?? 2; const hot = s.hot ?? 0;
  const qRows = s.rightRows ?? s.rows;
  const span = qRows * QUOTE_GAP_US;
  const scatter = new Scatter(qRows, seed);
  const symCol = (syms: Int32Array) => {
    if (s.sym === 'int') return int32Col(syms);
    const b = new Utf8Builder(syms.length, 5);
    for (let i = 0; i < syms.length; i++) b.pushNumber(S_PREFIX, syms[i]!, 4);
    return b.data();
  };
  const side = (name: 'trades' | 'quotes', rows: number, stream: number): GeneratedFile => ({
    name: `${name}.ipc`, rows, csv: true,
    batches: () => batched(rows, (start, n, k) => {
      const rng = new Rng(seed + stream, k);
      const sym = new Int32Array(n); const ts = new BigInt64Array(n); const tw = new Int32Array(ts.buffer); const px = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        sym[i] = pick(rng, SYMBOLS, hot);
        const t = name === 'quotes' ? scatter.at(start + i) * QUOTE_GAP_US + rng.int(QUOTE_GAP_US) : Math.floor(rng.float() * span);
        setI64(tw, i, T0_US + t);
        px[i] = Math.round((100 + rng.float() * 50) * 100) / 100;
      }
      return batchOf({ sym: symCol(sym), ts: int64Col(ts), [name === 'trades' ? 'price' : 'bid']: float64Col(px) });
    }),
  });
  return [side('trades', s.rows, 100), side('quotes', qRows, 200)];
}

// ---------------------------------------------------------------------------------------------

const ITEM = ascii('item_');
const LABEL = ascii('label-');

function ordersFile(s: Extract<DatasetSpec, { kind: 'orders' }>): GeneratedFile {
  const seed = s.seed ?? 3;
  return {
    name: 'explode.ipc', rows: s.rows, csv: false,
    batches: () => batched(s.rows, (start, n, k) => {
      const rng = new Rng(seed, k);
      const id = new BigInt64Array(n); const iw = new Int32Array(id.buffer);
      const lists = new Int32Array(n + 1); const valid = new Validity(n);
      for (let i = 0; i < n; i++) {
        setI64(iw, i, start + i);
        const r = rng.float();
        valid.set(i, r >= 0.02);
        lists[i + 1] = lists[i]! + (r < 0.05 ? 0 : 1 + rng.int(16));
      }
      const m = lists[n]!;
      const items = new Utf8Builder(m, 10);
      const qty = new BigInt64Array(m); const qw = new Int32Array(qty.buffer);
      for (let j = 0; j < m; j++) { items.pushNumber(ITEM, rng.int(50_000)); qw[2 * j] = 1 + rng.int(100); }
      const label = new Utf8Builder(n, 11);
      for (let i = 0; i < n; i++) label.pushNumber(LABEL, (rng.int(1000) * 7919) % 100_003);
      return batchOf({
        id: int64Col(id), items: listCol(items.data(), lists, valid), quantities: listCol(int64Col(qty), lists, valid), label: label.data(),
      }, { id: false, items: true, quantities: true, label: false });
    }),
  };
}

// ---------------------------------------------------------------------------------------------

const K_PREFIX = ascii('k');
const V_PREFIX = ascii('v');

function joinFiles(s: Extract<DatasetSpec, { kind: 'join' }>): GeneratedFile[] {
  const seed = s.seed ?? 4; const keys = Math.ceil(s.dimRows * 1.1);
  const scatter = new Scatter(s.dimRows, seed);
  const fact: GeneratedFile = {
    name: 'fact.ipc', rows: s.rows, csv: true,
    batches: () => batched(s.rows, (start, n, k) => {
      const rng = new Rng(seed, k);
      const id = new BigInt64Array(n); const iw = new Int32Array(id.buffer);
      const key = new BigInt64Array(n); const kw = new Int32Array(key.buffer);
      const skey = new Utf8Builder(n, 9); const amount = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        setI64(iw, i, start + i);
        const x = rng.int(keys); kw[2 * i] = x; skey.pushNumber(K_PREFIX, x, 8);
        amount[i] = Math.round(rng.float() * 1e6) / 100;
      }
      return batchOf({ id: int64Col(id), key: int64Col(key), skey: skey.data(), amount: float64Col(amount) });
    }),
  };
  const dim: GeneratedFile = {
    name: 'dim.ipc', rows: s.dimRows, csv: true,
    batches: () => batched(s.dimRows, (start, n, k) => {
      const rng = new Rng(seed + 1, k);
      const key = new BigInt64Array(n); const kw = new Int32Array(key.buffer);
      const skey = new Utf8Builder(n, 9);
      const attr = new BigInt64Array(n); const aw = new Int32Array(attr.buffer);
      for (let i = 0; i < n; i++) { const x = scatter.at(start + i); kw[2 * i] = x; skey.pushNumber(K_PREFIX, x, 8); aw[2 * i] = rng.int(1_000_000); }
      return batchOf({ key: int64Col(key), skey: skey.data(), attr: int64Col(attr) });
    }),
  };
  return [fact, dim];
}

function distinctFile(s: Extract<DatasetSpec, { kind: 'distinct' }>): GeneratedFile {
  const seed = s.seed ?? 5;
  return {
    name: 'distinct.ipc', rows: s.rows, csv: true,
    batches: () => batched(s.rows, (_start, n, k) => {
      const rng = new Rng(seed, k);
      const kk = new BigInt64Array(n); const kw = new Int32Array(kk.buffer);
      const v = new BigInt64Array(n); const vw = new Int32Array(v.buffer);
      const sb = new Utf8Builder(n, 8);
      for (let i = 0; i < n; i++) { const x = rng.int(s.distinct); kw[2 * i] = x; vw[2 * i] = (x * 7919) % 1_000_003; sb.pushNumber(V_PREFIX, x); }
      return batchOf({ k: int64Col(kk), v: int64Col(v), s: sb.data() });
    }),
  };
}

export function filesOf(spec: DatasetSpec): GeneratedFile[] {
  switch (spec.kind) {
    case 'window': return [windowFile(spec)];
    case 'market': return marketFiles(spec);
    case 'orders': return [ordersFile(spec)];
    case 'join': return joinFiles(spec);
    case 'distinct': return [distinctFile(spec)];
  }
}

const short = (n: number): string => (n % 1_000_000 === 0 ? `${n / 1_000_000}m` : n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** folder name of a data set under the data root: its parameters, readable */
export function datasetDir(spec: DatasetSpec): string {
  const parts: string[] = [spec.kind, short(spec.rows)];
  if (spec.kind === 'window' && spec.users !== undefined) parts.push(`u${short(spec.users)}`);
  if (spec.kind === 'market') { if (spec.rightRows !== undefined && spec.rightRows !== spec.rows) parts.push(`r${short(spec.rightRows)}`); parts.push(spec.sym); }
  if (spec.kind === 'join') parts.push(`d${short(spec.dimRows)}`);
  if (spec.kind === 'distinct') parts.push(`k${short(spec.distinct)}`);
  if ('hot' in spec && spec.hot) parts.push(`hot${Math.round(spec.hot * 100)}`);
  if (spec.seed !== undefined) parts.push(`s${spec.seed}`);
  return parts.join('-');
}
