/**
 * Seeded generators of the built-in demo data sets (`sluice demo`, and `"type": "demo"` sources
 * in job files). Every column is built straight from typed arrays with `makeData` (no per-row
 * objects; strings as plain Utf8 offsets + bytes, never `vectorFromArray`, which would make
 * Dictionary columns). The same (dataset, rows, seed) always gives the same table.
 *
 * - serving_log: user_id int64, create_ts timestamp[ms], tokens int64, spend float64 (~1% NULL)
 * - trades:      sym utf8, ts timestamp[ns], price float64, qty int32, venue utf8
 * - quotes:      sym utf8, ts timestamp[ns], bid float64, ask float64, venue utf8
 * - orders:      id int64, items list<utf8>, label utf8, quantities list<int64>; `items` and
 *                `quantities` have equal effective lengths per row, with some empty lists and
 *                some NULL lists (NULL and empty both count as length 0 for explode)
 */
import {
  Field,
  Float64,
  Int32,
  Int64,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMillisecond,
  TimestampNanosecond,
  Utf8,
  type Data,
  type DataType,
} from 'apache-arrow';

import { build } from '../columns/gather.js';
import type { TypedArray } from '../types/keys.js';
export const DATASETS = ['serving_log', 'trades', 'quotes', 'orders'] as const;
export type DatasetName = (typeof DATASETS)[number];

/** Rows per RecordBatch of the generated tables. */
const BATCH_ROWS = 1 << 16;

/** 2024-01-01T00:00:00Z in ms. */
const EPOCH_2024_MS = 1_704_067_200_000;
/** 2024-03-01T14:30:00Z in ms (a trading session start). */
const SESSION_MS = 1_709_303_400_000;

/** mulberry32: small, fast, good enough for demo data; deterministic per seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = (seed ^ 0x9e3779b9) >>> 0;
  }
  /** uniform in [0, 1) */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

// ---- column builders ---------------------------------------------------------------------------

function validityFrom(nulls: Uint8Array | null, n: number): { nullBitmap?: Uint8Array; nullCount: number } {
  if (!nulls) return { nullCount: 0 };
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (nulls[i]) nullCount++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  }
  return nullCount === 0 ? { nullCount: 0 } : { nullBitmap: bitmap, nullCount };
}

function primitive<T extends DataType>(type: T, values: TypedArray, nulls: Uint8Array | null = null): Data<T> {
  const n = values.length;
  return build({ type, length: n, data: values, ...validityFrom(nulls, n) }) as Data<T>;
}

/** Utf8 column from indexes into a vocabulary (plain offsets + bytes). */
function utf8FromCodes(vocab: readonly string[], codes: Uint8Array | Uint16Array, nulls: Uint8Array | null = null): Data<Utf8> {
  const enc = vocab.map((s) => Buffer.from(s, 'utf8'));
  const n = codes.length;
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!nulls || !nulls[i]) total += enc[codes[i]!]!.byteLength;
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    if (!nulls || !nulls[i]) bytes.set(enc[codes[i]!]!, offsets[i]!);
  }
  return makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data: bytes, ...validityFrom(nulls, n) });
}

function listOf<T extends DataType>(child: Data<T>, offsets: Int32Array, nulls: Uint8Array | null, childNullable = true): Data<List<T>> {
  const n = offsets.length - 1;
  const type = new List(new Field('item', child.type, childNullable));
  return makeData({ type, length: n, valueOffsets: offsets, child, ...validityFrom(nulls, n) });
}

/** Cut columns (all of length n) into RecordBatches of BATCH_ROWS rows. */
function toTable(fields: Field[], columns: Data[], n: number): Table {
  const schema = new Schema(fields);
  const batches: RecordBatch[] = [];
  const whole = makeData({ type: new Struct(fields), length: n, nullCount: 0, children: columns });
  if (n === 0) batches.push(new RecordBatch(schema, whole));
  for (let start = 0; start < n; start += BATCH_ROWS) {
    batches.push(new RecordBatch(schema, whole.slice(start, Math.min(BATCH_ROWS, n - start))));
  }
  return new Table(schema, batches);
}

// ---- data sets -------------------------------------------------------------------------------

/**
 * A serving log: `rows` events of ~rows/100 users (at least 10) over 90 days of 2024,
 * in no particular order. tokens 1..4000 (heavy-tailed), spend = tokens × price + noise,
 * NULL in ~1% of rows.
 */
export function servingLog(rows: number, seed = 1): Table {
  const rng = new Rng(seed);
  const users = Math.max(10, Math.floor(rows / 100));
  const userId = new BigInt64Array(rows);
  const ts = new BigInt64Array(rows);
  const tokens = new BigInt64Array(rows);
  const spend = new Float64Array(rows);
  const spendNull = new Uint8Array(rows);
  const span = 90 * 86_400_000;
  for (let i = 0; i < rows; i++) {
    // a few heavy users: square the uniform draw
    const u = rng.next();
    userId[i] = BigInt(100_000 + Math.floor(u * u * users));
    ts[i] = BigInt(EPOCH_2024_MS + Math.floor(rng.next() * span));
    const t = 1 + Math.floor(Math.exp(rng.next() * Math.log(4000)));
    tokens[i] = BigInt(Math.min(t, 4000));
    spend[i] = Math.round((t * 0.00002 + rng.next() * 0.001) * 1e6) / 1e6;
    spendNull[i] = rng.next() < 0.01 ? 1 : 0;
  }
  const fields = [
    new Field('user_id', new Int64(), false),
    new Field('create_ts', new TimestampMillisecond(), false),
    new Field('tokens', new Int64(), false),
    new Field('spend', new Float64(), true),
  ];
  return toTable(
    fields,
    [primitive(new Int64(), userId), primitive(new TimestampMillisecond(), ts), primitive(new Int64(), tokens), primitive(new Float64(), spend, spendNull)],
    rows,
  );
}

const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOG', 'META', 'TSLA', 'AMD'] as const;
const SYMBOL_PRICES = [182, 415, 880, 178, 141, 505, 190, 180];
const VENUES = ['XNAS', 'XNYS', 'BATS', 'IEXG'] as const;

/** Timestamps in ns over the first 30 minutes of a session, unsorted. */
function marketTimes(rng: Rng, n: number): BigInt64Array {
  const out = new BigInt64Array(n);
  const sessionNs = 1800 * 1e9;
  const base = BigInt(SESSION_MS) * 1_000_000n;
  for (let i = 0; i < n; i++) out[i] = base + BigInt(Math.floor(rng.next() * sessionNs));
  return out;
}

function symbolCodes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.int(SYMBOLS.length);
  return out;
}

function venueCodes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.int(VENUES.length);
  return out;
}

/** Price of symbol `s` at session time fraction `f`: a smooth per-symbol drift. */
function midPrice(s: number, ts: bigint): number {
  const f = Number(ts % 86_400_000_000_000n) / 86_400e9;
  const p0 = SYMBOL_PRICES[s]!;
  return p0 * (1 + 0.01 * Math.sin(6.283 * (f * 3 + s / 8)));
}

export function trades(rows: number, seed = 2): Table {
  const rng = new Rng(seed);
  const sym = symbolCodes(rng, rows);
  const ts = marketTimes(rng, rows);
  const price = new Float64Array(rows);
  const qty = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    price[i] = Math.round(midPrice(sym[i]!, ts[i]!) * (1 + (rng.next() - 0.5) * 0.0004) * 100) / 100;
    qty[i] = (1 + rng.int(50)) * (rng.next() < 0.8 ? 1 : 100);
  }
  const venue = venueCodes(rng, rows);
  const fields = [
    new Field('sym', new Utf8(), false),
    new Field('ts', new TimestampNanosecond(), false),
    new Field('price', new Float64(), false),
    new Field('qty', new Int32(), false),
    new Field('venue', new Utf8(), false),
  ];
  return toTable(
    fields,
    [utf8FromCodes(SYMBOLS, sym), primitive(new TimestampNanosecond(), ts), primitive(new Float64(), price), primitive(new Int32(), qty), utf8FromCodes(VENUES, venue)],
    rows,
  );
}

export function quotes(rows: number, seed = 3): Table {
  const rng = new Rng(seed);
  const sym = symbolCodes(rng, rows);
  const ts = marketTimes(rng, rows);
  const bid = new Float64Array(rows);
  const ask = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const mid = midPrice(sym[i]!, ts[i]!) * (1 + (rng.next() - 0.5) * 0.0002);
    const half = 0.01 + rng.int(5) * 0.01;
    bid[i] = Math.round((mid - half) * 100) / 100;
    ask[i] = Math.round((mid + half) * 100) / 100;
  }
  const venue = venueCodes(rng, rows);
  const fields = [
    new Field('sym', new Utf8(), false),
    new Field('ts', new TimestampNanosecond(), false),
    new Field('bid', new Float64(), false),
    new Field('ask', new Float64(), false),
    new Field('venue', new Utf8(), false),
  ];
  return toTable(
    fields,
    [utf8FromCodes(SYMBOLS, sym), primitive(new TimestampNanosecond(), ts), primitive(new Float64(), bid), primitive(new Float64(), ask), utf8FromCodes(VENUES, venue)],
    rows,
  );
}

const ITEMS = ['apple', 'bread', 'cheese', 'dates', 'eggs', 'flour', 'grapes', 'honey', 'ice', 'jam', 'kale', 'lemon'] as const;
const LABELS = ['web', 'app', 'store', 'phone'] as const;

/**
 * Orders with two parallel lists: `items` (list<utf8>) and `quantities` (list<int64>) of equal
 * effective length per row (0..4 elements). ~5% of rows have no items: then each list is,
 * independently, empty or NULL. ~2% of the item names are NULL elements.
 */
export function orders(rows: number, seed = 4): Table {
  const rng = new Rng(seed);
  const id = new BigInt64Array(rows);
  const lens = new Uint8Array(rows);
  const itemsNull = new Uint8Array(rows);
  const qtyNull = new Uint8Array(rows);
  let total = 0;
  for (let i = 0; i < rows; i++) {
    id[i] = BigInt(1_000_000 + i);
    if (rng.next() < 0.05) {
      lens[i] = 0;
      itemsNull[i] = rng.next() < 0.5 ? 1 : 0;
      qtyNull[i] = rng.next() < 0.5 ? 1 : 0;
    } else lens[i] = 1 + rng.int(4);
    total += lens[i]!;
  }
  const offsets = new Int32Array(rows + 1);
  for (let i = 0; i < rows; i++) offsets[i + 1] = offsets[i]! + lens[i]!;
  const itemCodes = new Uint8Array(total);
  const itemElemNull = new Uint8Array(total);
  const qty = new BigInt64Array(total);
  for (let k = 0; k < total; k++) {
    itemCodes[k] = rng.int(ITEMS.length);
    itemElemNull[k] = rng.next() < 0.02 ? 1 : 0;
    qty[k] = BigInt(1 + rng.int(12));
  }
  const label = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) label[i] = rng.int(LABELS.length);
  const items = listOf(utf8FromCodes(ITEMS, itemCodes, itemElemNull), offsets, itemsNull);
  const quantities = listOf(primitive(new Int64(), qty), offsets.slice(), qtyNull, false);
  const fields = [
    new Field('id', new Int64(), false),
    new Field('items', items.type, true),
    new Field('label', new Utf8(), false),
    new Field('quantities', quantities.type, true),
  ];
  return toTable(fields, [primitive(new Int64(), id), items, utf8FromCodes(LABELS, label), quantities], rows);
}

export function generate(dataset: DatasetName, rows: number, seed?: number): Table {
  switch (dataset) {
    case 'serving_log':
      return servingLog(rows, seed);
    case 'trades':
      return trades(rows, seed);
    case 'quotes':
      return quotes(rows, seed);
    case 'orders':
      return orders(rows, seed);
  }
}
