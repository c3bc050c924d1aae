/**
 * Row-wise choices among already-evaluated arguments of one type (bind casts them):
 * `coalesce(a, b, ...)`, each row's first argument that is not NULL, and
 * `CASE WHEN c1 THEN v1 ... [ELSE e] END`, each row's value of the first condition that is TRUE
 * (a NULL condition is not TRUE), else `e`, else NULL. Every branch is evaluated for every row
 * (no short circuit: no operator here raises on a row), then each row's value is copied once from
 * the argument it picks (chooseRows): fixed-width values as 32-bit words (8-byte values as two,
 * so no BigInt per row), strings as byte ranges, booleans as bits.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import { isString } from '../types/column.js';
import { allocBits, boolBitsOf, ByteBuilder, ctorOf, getBit, makeResult, strViewOf, validityOf, type Alloc } from './evaluate-data.js';
import { isConst, materialize, type Val } from './evaluate-value.js';


export function coalesce(t: TypeDesc, args: Val[], n: number, alloc: Alloc): Data {
  const cols = args.map((v) => dataOf(v, t, n, alloc));
  // pick[i]: the argument row i takes, -1 when every argument is NULL there
  const pick = new Int32Array(n).fill(-1);
  let open = n;
  for (let j = 0; j < cols.length && open > 0; j++) {
    const valid = validityOf(cols[j]!);
    for (let i = 0; i < n; i++) {
      if (pick[i] === -1 && (!valid || getBit(valid, i))) {
        pick[i] = j;
        open--;
      }
    }
  }
  return chooseRows(t, cols, pick, n, alloc);
}

/**
 * CASE: `args` are conditions and values in turn (c1, v1, c2, v2, ...) and, when their count is
 * odd, the ELSE value last.
 */
export function caseWhen(t: TypeDesc, args: Val[], n: number, alloc: Alloc): Data {
  const pairs = args.length >> 1;
  const values: Data[] = [];
  for (let k = 0; k < pairs; k++) values.push(dataOf(args[2 * k + 1]!, t, n, alloc));
  const otherwise = args.length % 2 === 1 ? dataOf(args[args.length - 1]!, t, n, alloc) : null;
  const pick = new Int32Array(n).fill(-1);
  let open = n;
  for (let k = 0; k < pairs && open > 0; k++) {
    const c = args[2 * k]!;
    if (isConst(c)) {
      if (c.value !== true) continue;
      for (let i = 0; i < n; i++) if (pick[i] === -1) pick[i] = k;
      open = 0;
      continue;
    }
    const bits = boolBitsOf(c);
    const valid = validityOf(c);
    for (let i = 0; i < n; i++) {
      if (pick[i] === -1 && getBit(bits, i) && (!valid || getBit(valid, i))) {
        pick[i] = k;
        open--;
      }
    }
  }
  if (otherwise) {
    values.push(otherwise);
    for (let i = 0; i < n; i++) if (pick[i] === -1) pick[i] = pairs;
  }
  return chooseRows(t, values, pick, n, alloc);
}

function dataOf(v: Val, t: TypeDesc, n: number, alloc: Alloc): Data {
  return isConst(v) ? materialize(v.value, t, n, alloc) : v;
}

/** Row i of the result is row i of cols[pick[i]] (NULL where pick[i] is -1 or that row is NULL). */
function chooseRows(t: TypeDesc, cols: Data[], pick: Int32Array, n: number, alloc: Alloc): Data {
  const valids = cols.map(validityOf);
  let validity: Uint8Array | null = null;
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const j = pick[i]!;
    if (j === -1 || (valids[j] && !getBit(valids[j]!, i))) {
      pick[i] = -1;
      nulls++;
    }
  }
  if (nulls > 0) {
    validity = allocBits(alloc, n);
    for (let i = 0; i < n; i++) if (pick[i] !== -1) validity[i >> 3]! |= 1 << (i & 7);
  }
  if (t.kind === 'null') return makeResult(t, n, null, {});
  if (t.kind === 'bool') {
    const bits = allocBits(alloc, n);
    const srcs = cols.map(boolBitsOf);
    for (let i = 0; i < n; i++) if (pick[i] !== -1 && getBit(srcs[pick[i]!]!, i)) bits[i >> 3]! |= 1 << (i & 7);
    return makeResult(t, n, validity, { data: bits });
  }
  if (isString(t) || t.kind === 'binary') {
    const views = cols.map(strViewOf);
    const bytes = new ByteBuilder();
    const offsets = alloc(Int32Array, n + 1) as Int32Array;
    for (let i = 0; i < n; i++) {
      if (pick[i] !== -1) {
        const v = views[pick[i]!]!;
        bytes.append(v.bytes, v.offsets[i]!, v.offsets[i + 1]!);
      }
      offsets[i + 1] = bytes.length;
    }
    return makeResult(t, n, validity, { data: bytes.finish(alloc), valueOffsets: offsets });
  }
  const ctor = ctorOf(t);
  const out = alloc(ctor, n);
  const width = ctor.BYTES_PER_ELEMENT;
  if (width >= 4) {
    const w = width / 4;
    const dst = new Uint32Array(out.buffer, out.byteOffset, n * w);
    const srcs = cols.map((c) => {
      const v = c.values as ArrayBufferView;
      return new Uint32Array(v.buffer, v.byteOffset, n * w);
    });
    for (let i = 0; i < n; i++) {
      const j = pick[i]!;
      if (j === -1) continue;
      const src = srcs[j]!;
      for (let k = i * w, end = k + w; k < end; k++) dst[k] = src[k]!;
    }
  } else {
    const dst = out as Uint8Array | Int8Array | Uint16Array | Int16Array;
    const srcs = cols.map((c) => c.values as typeof dst);
    for (let i = 0; i < n; i++) if (pick[i] !== -1) dst[i] = srcs[pick[i]!]![i]!;
  }
  return makeResult(t, n, validity, { data: out });
}
