// bench/data.ts
import {
  Field,
  Float64,
  Int64,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMillisecond,
  TimestampNanosecond,
  Utf8
} from "apache-arrow";
var Rng = class {
  s;
  constructor(seed) {
    this.s = seed >>> 0 || 2654435769;
  }
  /** uniform uint32 */
  u32() {
    let t = this.s = this.s + 1831565813 | 0;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return (t ^ t >>> 14) >>> 0;
  }
  /** uniform in [0, 1) with 32 bits */
  float() {
    return this.u32() / 4294967296;
  }
  /** uniform integer in [0, n) for n <= 2^32 */
  int(n) {
    return Math.floor(this.float() * n);
  }
  /** uniform integer in [0, n) for n <= 2^53 */
  big(n) {
    return Math.floor((this.u32() * 2097152 + (this.u32() >>> 11)) / 9007199254740992 * n);
  }
};
var TWO32 = 4294967296;
function setI64(words, i, v) {
  words[2 * i] = v % TWO32 | 0;
  words[2 * i + 1] = Math.floor(v / TWO32) | 0;
}
function i64Data(values, type = new Int64()) {
  return makeData({ type, length: values.length, nullCount: 0, data: values });
}
function f64Data(values) {
  return makeData({ type: new Float64(), length: values.length, nullCount: 0, data: values });
}
function utf8Data(offsets, bytes, nullBitmap, nullCount = 0) {
  return makeData({ type: new Utf8(), length: offsets.length - 1, nullCount, nullBitmap, valueOffsets: offsets, data: bytes });
}
function tableOf(columns) {
  const fields = Object.entries(columns).map(([name, d]) => new Field(name, d.type, d.nullCount > 0));
  const length = Object.values(columns)[0].length;
  const data = makeData({ type: new Struct(fields), length, nullCount: 0, children: Object.values(columns) });
  return new Table([new RecordBatch(new Schema(fields), data)]);
}
var YEAR_2024_MS = Date.UTC(2024, 0, 1);
var YEAR_MS = 366 * 864e5;
function servingLog(opts) {
  const n = opts.rows;
  const rng = new Rng(opts.seed ?? 1);
  const users = opts.rowsPerUser ? Math.max(1, Math.ceil(n / opts.rowsPerUser)) : opts.users ?? 1e5;
  const userId = new BigInt64Array(n);
  const uw = new Int32Array(userId.buffer);
  const ts = new BigInt64Array(n);
  const tw = new Int32Array(ts.buffer);
  const tokens = new BigInt64Array(n);
  const kw = new Int32Array(tokens.buffer);
  const spend = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    uw[2 * i] = opts.rowsPerUser ? i % users : rng.int(users);
    setI64(tw, i, YEAR_2024_MS + rng.big(YEAR_MS));
    const t = rng.int(5001);
    kw[2 * i] = t;
    spend[i] = t * (0.5 + rng.float()) * 1e-5;
  }
  const cols = {
    user_id: i64Data(userId),
    create_ts: i64Data(ts, new TimestampMillisecond()),
    tokens: i64Data(tokens),
    spend: f64Data(spend)
  };
  for (let m = 0; m < (opts.extraMeasures ?? 0); m++) {
    const v = new BigInt64Array(n);
    const w = new Int32Array(v.buffer);
    for (let i = 0; i < n; i++) w[2 * i] = rng.int(1e4);
    cols[`m${m}`] = i64Data(v);
  }
  return tableOf(cols);
}
var SESSION_START_NS = 1704205800n * 1000000000n;
var SESSION_NS = 6.5 * 3600 * 1e9;
function symColumn(n, symbols, rng) {
  const offsets = new Int32Array(n + 1);
  const bytes = new Uint8Array(5 * n);
  for (let i = 0; i < n; i++) {
    let s2 = rng.int(symbols);
    const o = 5 * i;
    offsets[i + 1] = o + 5;
    bytes[o] = 83;
    bytes[o + 4] = 48 + s2 % 10;
    s2 = s2 / 10 | 0;
    bytes[o + 3] = 48 + s2 % 10;
    s2 = s2 / 10 | 0;
    bytes[o + 2] = 48 + s2 % 10;
    s2 = s2 / 10 | 0;
    bytes[o + 1] = 48 + s2 % 10;
  }
  return utf8Data(offsets, bytes);
}
function nsColumn(n, rng) {
  const ts = new BigInt64Array(n);
  const w = new Int32Array(ts.buffer);
  const baseLo = Number(SESSION_START_NS & 0xffffffffn);
  const baseHi = Number(SESSION_START_NS >> 32n);
  for (let i = 0; i < n; i++) {
    const off = rng.big(SESSION_NS / 1e3) * 1e3;
    const offLo = off % TWO32;
    const offHi = Math.floor(off / TWO32);
    let lo = baseLo + offLo;
    let hi = baseHi + offHi;
    if (lo >= TWO32) {
      lo -= TWO32;
      hi += 1;
    }
    w[2 * i] = lo | 0;
    w[2 * i + 1] = hi | 0;
  }
  return i64Data(ts, new TimestampNanosecond());
}
function trades(opts) {
  const n = opts.rows;
  const rng = new Rng(opts.seed ?? 2);
  const sym = symColumn(n, opts.symbols ?? 1e3, rng);
  const ts = nsColumn(n, rng);
  const price = new Float64Array(n);
  const qty = new BigInt64Array(n);
  const qw = new Int32Array(qty.buffer);
  for (let i = 0; i < n; i++) {
    price[i] = 10 + rng.float() * 490;
    qw[2 * i] = 1 + rng.int(1e3);
  }
  return tableOf({ sym, ts, price: f64Data(price), qty: i64Data(qty) });
}
function quotes(opts) {
  const n = opts.rows;
  const rng = new Rng(opts.seed ?? 3);
  const sym = symColumn(n, opts.symbols ?? 1e3, rng);
  const ts = nsColumn(n, rng);
  const bid = new Float64Array(n);
  const ask = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const m = 10 + rng.float() * 490;
    bid[i] = m - 0.01;
    ask[i] = m + 0.01;
  }
  return tableOf({ sym, ts, bid: f64Data(bid), ask: f64Data(ask) });
}
function orders(opts) {
  const n = opts.rows;
  const rng = new Rng(opts.seed ?? 4);
  const maxLen = opts.maxLen ?? 16;
  const nullFraction = opts.nullFraction ?? 0.03;
  const start = opts.startId ?? 0;
  const id = new BigInt64Array(n);
  const iw = new Int32Array(id.buffer);
  const listOffsets = new Int32Array(n + 1);
  const valid = new Uint8Array(n + 7 >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    setI64(iw, i, start + i);
    if (rng.float() < nullFraction) {
      nulls++;
      listOffsets[i + 1] = listOffsets[i];
      continue;
    }
    valid[i >> 3] |= 1 << (i & 7);
    listOffsets[i + 1] = listOffsets[i] + rng.int(maxLen + 1);
  }
  const m = listOffsets[n];
  const strOffsets = new Int32Array(m + 1);
  const bytes = new Uint8Array(7 * m);
  const qty = new BigInt64Array(m);
  const qw = new Int32Array(qty.buffer);
  let p = 0;
  for (let j = 0; j < m; j++) {
    bytes[p++] = 105;
    bytes[p++] = 116;
    let v = rng.int(1e5);
    const digits = v < 10 ? 1 : v < 100 ? 2 : v < 1e3 ? 3 : v < 1e4 ? 4 : 5;
    for (let d = digits - 1; d >= 0; d--) {
      bytes[p + d] = 48 + v % 10;
      v = v / 10 | 0;
    }
    p += digits;
    strOffsets[j + 1] = p;
    qw[2 * j] = 1 + rng.int(100);
  }
  const itemsChild = utf8Data(strOffsets, bytes.subarray(0, p));
  const qtyChild = i64Data(qty);
  const items = makeData({
    type: new List(new Field("item", new Utf8(), false)),
    length: n,
    nullCount: nulls,
    nullBitmap: nulls ? valid : void 0,
    valueOffsets: listOffsets,
    child: itemsChild
  });
  const quantities = makeData({
    type: new List(new Field("item", new Int64(), false)),
    length: n,
    nullCount: nulls,
    nullBitmap: nulls ? valid : void 0,
    valueOffsets: listOffsets,
    child: qtyChild
  });
  return tableOf({ id: i64Data(id), items, quantities });
}

// bench/harness.ts
function parseArgs(argv) {
  const flags = /* @__PURE__ */ new Set();
  const values = /* @__PURE__ */ new Map();
  let command2 = "all";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) values.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--") && VALUE_FLAGS.has(a.slice(2))) values.set(a.slice(2), argv[++i]);
      else flags.add(a.slice(2));
    } else command2 = a;
  }
  const num = (k) => {
    const v = values.get(k);
    if (v === void 0) return void 0;
    const n = Number(v.replace(/_/g, "").replace(/[mM]$/, "e6").replace(/[kK]$/, "e3"));
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${k} expects a number, got ${JSON.stringify(v)}`);
    return n;
  };
  const list = (k) => values.get(k)?.split(",").map((s2) => s2.trim()).filter(Boolean);
  const quick = flags.has("quick");
  return {
    command: command2,
    args: {
      quick,
      rows: num("rows"),
      repeat: num("repeat") ?? (quick ? 2 : 3),
      warmup: num("warmup") ?? 1,
      peersOnly: flags.has("peers-only"),
      sluiceOnly: flags.has("sluice-only"),
      threads: num("threads") ?? 2,
      only: list("only"),
      skip: list("skip"),
      flags,
      values
    }
  };
}
var VALUE_FLAGS = /* @__PURE__ */ new Set(["rows", "repeat", "warmup", "threads", "only", "skip", "shape-rows", "stream-rows", "duckdb-fetch", "right-rows", "out"]);

// bench/sluice.ts
var SLUICE_URL = process.env.SLUICE_MODULE ? new URL(process.env.SLUICE_MODULE, `file://${process.cwd()}/`) : new URL("../dist/index.js", import.meta.url);
async function loadSluice() {
  try {
    return await import(SLUICE_URL.href);
  } catch (e) {
    const err = e;
    throw new Error(`cannot load the built Sluice package at ${SLUICE_URL.pathname} (run \`npm run build\`, or pass --peers-only): ${err.message}`);
  }
}

// bench/profile-job.ts
var { command, args } = parseArgs(process.argv.slice(2));
var s = await loadSluice();
var engine = new s.Engine({ threads: args.threads });
var rowsOut = 0;
if (command === "window" || command === "all") {
  const table = servingLog({ rows: args.rows ?? 1e7, users: 1e5, seed: 1 });
  const t1 = performance.now();
  const out = await engine.fromArrow(table).window({
    partitionBy: "user_id",
    orderBy: "create_ts",
    columns: Object.fromEntries([3, 7, 30, 90, 180].map((w) => [`tokens_${w}`, s.sum("tokens").rows(w - 1)]))
  }).collect();
  rowsOut = out.numRows;
  process.stderr.write(`window: ${rowsOut} rows in ${((performance.now() - t1) / 1e3).toFixed(3)} s (threads ${args.threads})
`);
} else if (command === "asof") {
  const n = args.rows ?? 1e7;
  const l = trades({ rows: n, seed: 2 });
  const r = quotes({ rows: n, seed: 3 });
  const t1 = performance.now();
  const out = await engine.fromArrow(l).asofJoin(engine.fromArrow(r), { on: "ts", by: "sym", direction: args.flags.has("nearest") ? "nearest" : "backward" }).collect();
  rowsOut = out.numRows;
  process.stderr.write(`asof: ${rowsOut} rows in ${((performance.now() - t1) / 1e3).toFixed(3)} s (threads ${args.threads})
`);
} else if (command === "explode") {
  const t = orders({ rows: args.rows ?? 2e6, seed: 4 });
  const t1 = performance.now();
  const out = await engine.fromArrow(t).explode(["items", "quantities"], { outputColumn: ["item", "quantity"] }).collect();
  rowsOut = out.numRows;
  process.stderr.write(`explode: ${rowsOut} rows in ${((performance.now() - t1) / 1e3).toFixed(3)} s (threads ${args.threads})
`);
} else {
  process.stderr.write(`unknown job ${command}
`);
  process.exitCode = 2;
}
await engine.close();
