/**
 * Seeded, fast benchmark data generators.
 *
 * Every column is built from typed arrays and wrapped with `makeData` / `makeVector` (no per-row
 * JS objects, no `vectorFromArray` on strings, which would produce Dictionary columns). Strings
 * are plain Utf8 (offsets + bytes), lists are plain List<...> (offsets + child data).
 *
 * int64 and timestamp values are written as two 32-bit halves into an Int32Array view of the
 * BigInt64Array buffer (little-endian), so no BigInt is created per value.
 *
 * Data sets:
 *  - serving log (window):  user_id int64, create_ts timestamp[ms] (unsorted, uniform within
 *    2024), tokens int64 (0..5000), spend float64. Extra int64 measures m0..m5 on request.
 *  - trades / quotes (asof): sym utf8 ('S0000'..'S0999', 5 bytes), ts timestamp[ns]
 *    (unsorted, uniform within one 6.5 h trading session), trades: price float64, qty int64;
 *    quotes: bid float64, ask float64.
 *  - orders (explode): id int64, items list<utf8>, quantities list<int64>; lengths uniform
 *    0..16 (mean 8, ~5.9% empty), ~3% NULL rows where both lists are NULL; both lists always
 *    have the same effective length.
 */
import {
  Data, Field, Float64, Int64, List, makeData, RecordBatch, Schema, Struct, Table, TimestampMillisecond,
  TimestampNanosecond, Utf8, type DataType,
} from 'apache-arrow';

// ---------------------------------------------------------------------------------------------
// PRNG: mulberry32 (fast, 32-bit state; good enough for benchmark data)

export class Rng {
  private s: number;
  constructor(seed: number) { this.s = seed >>> 0 || 0x9e3779b9; }
  /** uniform uint32 */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** uniform in [0, 1) with 32 bits */
  float(): number { return this.u32() / 4294967296; }
  /** uniform integer in [0, n) for n <= 2^32 */
  int(n: number): number { return Math.floor(this.float() * n); }
  /** uniform integer in [0, n) for n <= 2^53 */
  big(n: number): number { return Math.floor((this.u32() * 2097152 + (this.u32() >>> 11)) / 9007199254740992 * n); }
}

const TWO32 = 4294967296;

/** writes a non-negative safe integer into slot i of an Int32Array view of int64 data */
function setI64(words: Int32Array, i: number, v: number): void {
  words[2 * i] = v % TWO32 | 0;
  words[2 * i + 1] = Math.floor(v / TWO32) | 0;
}

function i64Data(values: BigInt64Array, type: DataType = new Int64()): Data<Int64> {
  return makeData({ type: type as Int64, length: values.length, nullCount: 0, data: values });
}
function f64Data(values: Float64Array): Data {
  return makeData({ type: new Float64(), length: values.length, nullCount: 0, data: values });
}
function utf8Data(offsets: Int32Array, bytes: Uint8Array, nullBitmap?: Uint8Array, nullCount = 0): Data<Utf8> {
  return makeData({ type: new Utf8(), length: offsets.length - 1, nullCount, nullBitmap, valueOffsets: offsets, data: bytes });
}

function tableOf(columns: Record<string, Data>): Table {
  const fields = Object.entries(columns).map(([name, d]) => new Field(name, d.type, d.nullCount > 0));
  const length = Object.values(columns)[0]!.length;
  const data = makeData({ type: new Struct(fields), length, nullCount: 0, children: Object.values(columns) });
  return new Table([new RecordBatch(new Schema(fields), data)]);
}

/** Splits a table into record batches of at most `rows` rows (views, no copy). */
export function rebatch(table: Table, rows: number): Table {
  const batches: RecordBatch[] = [];
  for (const b of table.batches) {
    for (let off = 0; off < b.numRows; off += rows) batches.push(b.slice(off, Math.min(b.numRows, off + rows)));
  }
  return new Table(table.schema, batches);
}

// ---------------------------------------------------------------------------------------------
// (a) serving log

export interface ServingLogOptions {
  rows: number;
  users?: number;          // default 100_000
  seed?: number;
  /** extra int64 measures m0..m{k-1} (shape A of the window benchmark) */
  extraMeasures?: number;
  /** exact rows per partition: user_id = i mod (rows / rowsPerUser) (shape C) */
  rowsPerUser?: number;
}

export const YEAR_2024_MS = Date.UTC(2024, 0, 1);
const YEAR_MS = 366 * 86400_000;

export function servingLog(opts: ServingLogOptions): Table {
  const n = opts.rows;
  const rng = new Rng(opts.seed ?? 1);
  const users = opts.rowsPerUser ? Math.max(1, Math.ceil(n / opts.rowsPerUser)) : (opts.users ?? 100_000);
  const userId = new BigInt64Array(n); const uw = new Int32Array(userId.buffer);
  const ts = new BigInt64Array(n); const tw = new Int32Array(ts.buffer);
  const tokens = new BigInt64Array(n); const kw = new Int32Array(tokens.buffer);
  const spend = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    uw[2 * i] = opts.rowsPerUser ? i % users : rng.int(users);
    setI64(tw, i, YEAR_2024_MS + rng.big(YEAR_MS));
    const t = rng.int(5001);
    kw[2 * i] = t;
    spend[i] = t * (0.5 + rng.float()) * 1e-5;
  }
  const cols: Record<string, Data> = {
    user_id: i64Data(userId),
    create_ts: i64Data(ts, new TimestampMillisecond()),
    tokens: i64Data(tokens),
    spend: f64Data(spend),
  };
  for (let m = 0; m < (opts.extraMeasures ?? 0); m++) {
    const v = new BigInt64Array(n); const w = new Int32Array(v.buffer);
    for (let i = 0; i < n; i++) w[2 * i] = rng.int(10_000);
    cols[`m${m}`] = i64Data(v);
  }
  return tableOf(cols);
}

// ---------------------------------------------------------------------------------------------
// (b) trades and quotes

export interface MarketOptions {
  rows: number;
  symbols?: number;   // default 1000
  seed?: number;
}

/** 2024-01-02 14:30 UTC (09:30 New York) in ns, as [hi, lo] 32-bit words of an int64 */
const SESSION_START_NS = 1704205800n * 1_000_000_000n;
const SESSION_NS = 6.5 * 3600 * 1e9; // 2.34e13 < 2^53

function symColumn(n: number, symbols: number, rng: Rng): Data<Utf8> {
  // 'S' + 4 digits = 5 bytes each (symbols <= 10_000)
  const offsets = new Int32Array(n + 1);
  const bytes = new Uint8Array(5 * n);
  for (let i = 0; i < n; i++) {
    let s = rng.int(symbols);
    const o = 5 * i;
    offsets[i + 1] = o + 5;
    bytes[o] = 83; // 'S'
    bytes[o + 4] = 48 + (s % 10); s = (s / 10) | 0;
    bytes[o + 3] = 48 + (s % 10); s = (s / 10) | 0;
    bytes[o + 2] = 48 + (s % 10); s = (s / 10) | 0;
    bytes[o + 1] = 48 + (s % 10);
  }
  return utf8Data(offsets, bytes);
}

function nsColumn(n: number, rng: Rng): Data {
  const ts = new BigInt64Array(n); const w = new Int32Array(ts.buffer);
  const baseLo = Number(SESSION_START_NS & 0xffffffffn);
  const baseHi = Number(SESSION_START_NS >> 32n);
  for (let i = 0; i < n; i++) {
    const off = rng.big(SESSION_NS / 1000) * 1000; // microsecond resolution, in ns
    const offLo = off % TWO32; const offHi = Math.floor(off / TWO32);
    let lo = baseLo + offLo; let hi = baseHi + offHi;
    if (lo >= TWO32) { lo -= TWO32; hi += 1; }
    w[2 * i] = lo | 0; w[2 * i + 1] = hi | 0;
  }
  return i64Data(ts, new TimestampNanosecond());
}

export function trades(opts: MarketOptions): Table {
  const n = opts.rows; const rng = new Rng(opts.seed ?? 2);
  const sym = symColumn(n, opts.symbols ?? 1000, rng);
  const ts = nsColumn(n, rng);
  const price = new Float64Array(n);
  const qty = new BigInt64Array(n); const qw = new Int32Array(qty.buffer);
  for (let i = 0; i < n; i++) { price[i] = 10 + rng.float() * 490; qw[2 * i] = 1 + rng.int(1000); }
  return tableOf({ sym, ts, price: f64Data(price), qty: i64Data(qty) });
}

export function quotes(opts: MarketOptions): Table {
  const n = opts.rows; const rng = new Rng(opts.seed ?? 3);
  const sym = symColumn(n, opts.symbols ?? 1000, rng);
  const ts = nsColumn(n, rng);
  const bid = new Float64Array(n); const ask = new Float64Array(n);
  for (let i = 0; i < n; i++) { const m = 10 + rng.float() * 490; bid[i] = m - 0.01; ask[i] = m + 0.01; }
  return tableOf({ sym, ts, bid: f64Data(bid), ask: f64Data(ask) });
}

// ---------------------------------------------------------------------------------------------
// (c) orders with two list columns

export interface OrdersOptions {
  rows: number;
  seed?: number;
  /** first id (for generating a large file batch by batch) */
  startId?: number;
  nullFraction?: number;  // default 0.03
  maxLen?: number;        // default 16 (uniform 0..maxLen, mean maxLen/2)
}

export function orders(opts: OrdersOptions): Table {
  const n = opts.rows; const rng = new Rng(opts.seed ?? 4);
  const maxLen = opts.maxLen ?? 16; const nullFraction = opts.nullFraction ?? 0.03;
  const start = opts.startId ?? 0;
  const id = new BigInt64Array(n); const iw = new Int32Array(id.buffer);
  const listOffsets = new Int32Array(n + 1);
  const valid = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    setI64(iw, i, start + i);
    if (rng.float() < nullFraction) { nulls++; listOffsets[i + 1] = listOffsets[i]!; continue; }
    valid[i >> 3]! |= 1 << (i & 7);
    listOffsets[i + 1] = listOffsets[i]! + rng.int(maxLen + 1);
  }
  const m = listOffsets[n]!;
  // children: items 'it' + 1..5 digits (3..7 bytes), quantities 1..100
  const strOffsets = new Int32Array(m + 1);
  const bytes = new Uint8Array(7 * m);
  const qty = new BigInt64Array(m); const qw = new Int32Array(qty.buffer);
  let p = 0;
  for (let j = 0; j < m; j++) {
    bytes[p++] = 105; bytes[p++] = 116; // 'it'
    let v = rng.int(100_000);
    const digits = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
    for (let d = digits - 1; d >= 0; d--) { bytes[p + d] = 48 + (v % 10); v = (v / 10) | 0; }
    p += digits;
    strOffsets[j + 1] = p;
    qw[2 * j] = 1 + rng.int(100);
  }
  const itemsChild = utf8Data(strOffsets, bytes.subarray(0, p));
  const qtyChild = i64Data(qty);
  const items = makeData({
    type: new List(new Field('item', new Utf8(), false)), length: n, nullCount: nulls,
    nullBitmap: nulls ? valid : undefined, valueOffsets: listOffsets, child: itemsChild,
  });
  const quantities = makeData({
    type: new List(new Field('item', new Int64(), false)), length: n, nullCount: nulls,
    nullBitmap: nulls ? valid : undefined, valueOffsets: listOffsets, child: qtyChild,
  });
  return tableOf({ id: i64Data(id), items, quantities });
}

/** Approximate in-memory size of a table's buffers (bytes). */
export function tableBytes(t: Table): number {
  let total = 0;
  const visit = (d: Data): void => {
    for (const b of [d.values, d.valueOffsets, d.nullBitmap, (d as any).typeIds]) {
      if (b && (b as ArrayBufferView).byteLength) total += (b as ArrayBufferView).byteLength;
    }
    for (const c of d.children) visit(c);
  };
  for (const b of t.batches) for (const c of b.data.children) visit(c);
  return total;
}
