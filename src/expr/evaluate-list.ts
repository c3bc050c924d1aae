/**
 * List functions: array(...), split(str, sep), slice(list, start, len), cardinality(list),
 * sequence(start, stop). Results are LIST columns with int32 offsets; rows that are NULL get an
 * empty range. slice copies its runs of child rows with gatherRanges (src/columns/gather), since
 * sliced runs are no longer contiguous.
 *
 * - split works on UTF-8 bytes: the separator is searched byte-wise (valid UTF-8 cannot match
 *   in the middle of a character); an empty separator splits into characters; an empty string
 *   gives [''] (Spark, Polars). NULL string or separator → NULL.
 * - slice (Spark semantics): start > 0 is 1-based, start < 0 counts from the end (-1 = last),
 *   start 0 acts as 1; a start outside the list gives []; len < 0 gives NULL; the result has
 *   min(len, remaining) elements. NULL list/start/len → NULL.
 * - cardinality: element count (fixed-size lists: their size; maps: entries); NULL → NULL.
 * - sequence: start..stop inclusive, step +1 or -1, int64; NULL bound → NULL. More than
 *   2^31-1 elements in one batch is an ExecutionError 'SEQUENCE_TOO_LONG'.
 */
import { gatherRanges } from '../columns/gather.js';
import type { Data } from 'apache-arrow';
import { ExecutionError } from '../errors.js';
import type { TypeDesc } from '../types/column.js';
import { isString } from '../types/column.js';
import type { Alloc } from './evaluate-data.js';
import {
  allocBits, andValidity, boolBitsOf, ByteBuilder, ctorOf, ENCODER, getBit, makeResult, strViewOf, validityOf,
} from './evaluate-data.js';
import type { Val } from './evaluate-value.js';
import { isConst, materialize } from './evaluate-value.js';

/** Growable Int32 array. */
class Int32Builder {
  a = new Int32Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.a.length) {
      const next = new Int32Array(this.a.length * 2);
      next.set(this.a);
      this.a = next;
    }
    this.a[this.length++] = v;
  }
  finish(alloc: Alloc): Int32Array {
    const out = alloc(Int32Array, this.length) as Int32Array;
    out.set(this.a.subarray(0, this.length));
    return out;
  }
}

export interface ListView {
  /** Row i's elements are child rows offsets[i] .. offsets[i+1]. */
  offsets: Int32Array | Float64Array;
  child: Data;
}

export function listViewOf(d: Data, t: TypeDesc, n: number): ListView {
  if (t.kind === 'fixedSizeList') {
    const offsets = new Int32Array(n + 1);
    for (let i = 0; i <= n; i++) offsets[i] = i * t.size;
    return { offsets, child: d.children[0] };
  }
  const o = d.valueOffsets as unknown as Int32Array | BigInt64Array;
  const offsets = o instanceof BigInt64Array ? Float64Array.from(o.subarray(0, n + 1), Number) : o;
  return { offsets, child: d.children[0] };
}

export function cardinality(t: TypeDesc, a: Data, n: number, alloc: Alloc): Data {
  const { offsets } = listViewOf(a, t, n);
  const out = alloc(Int32Array, n) as Int32Array;
  for (let i = 0; i < n; i++) out[i] = offsets[i + 1] - offsets[i];
  return makeResult({ kind: 'int', bits: 32, signed: true }, n, andValidity(alloc, n, validityOf(a)), { data: out });
}

function listType(t: TypeDesc): Extract<TypeDesc, { kind: 'list' }> {
  if (t.kind !== 'list') throw new Error('expected a list result type');
  return t;
}

/** array(x1..xk): row i is [x1[i], …, xk[i]]. Items already have the element type. */
export function makeArray(t: TypeDesc, items: Val[], n: number, alloc: Alloc): Data {
  const elem = listType(t).child.type;
  const k = items.length;
  const total = n * k;
  const cols = items.map((v) => (isConst(v) ? materialize(v.value, elem, n, alloc) : v));
  const offsets = alloc(Int32Array, n + 1) as Int32Array;
  for (let i = 0; i <= n; i++) offsets[i] = i * k;
  // child validity: bit i*k+j = validity of item j at row i
  const valids = cols.map(validityOf);
  let cv: Uint8Array | null = null;
  if (valids.some((v) => v !== null) || elem.kind === 'null') {
    cv = allocBits(alloc, total);
    for (let j = 0; j < k; j++) {
      const v = valids[j];
      for (let i = 0; i < n; i++) if (!v || getBit(v, i)) cv[(i * k + j) >> 3] |= 1 << ((i * k + j) & 7);
    }
  }
  let child: Data;
  if (elem.kind === 'null') {
    child = makeResult(elem, total, null, {});
  } else if (elem.kind === 'bool') {
    const bits = allocBits(alloc, total);
    for (let j = 0; j < k; j++) {
      const src = boolBitsOf(cols[j]);
      for (let i = 0; i < n; i++) if (getBit(src, i)) bits[(i * k + j) >> 3] |= 1 << ((i * k + j) & 7);
    }
    child = makeResult(elem, total, cv, { data: bits });
  } else if (isString(elem) || elem.kind === 'binary') {
    const views = cols.map(strViewOf);
    const b = new ByteBuilder();
    const co = alloc(Int32Array, total + 1) as Int32Array;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) {
        const s = views[j];
        b.append(s.bytes, s.offsets[i], s.offsets[i + 1]);
        co[i * k + j + 1] = b.length;
      }
    }
    child = makeResult(elem, total, cv, { data: b.finish(alloc), valueOffsets: co });
  } else {
    const out = alloc(ctorOf(elem), total) as Float64Array;
    for (let j = 0; j < k; j++) {
      const src = cols[j].values as Float64Array;
      for (let i = 0; i < n; i++) out[i * k + j] = src[i];
    }
    child = makeResult(elem, total, cv, { data: out });
  }
  return makeResult(t, n, null, { valueOffsets: offsets, child });
}

export function split(t: TypeDesc, str: Val, sep: Val, n: number, alloc: Alloc): Data {
  if ((isConst(str) && str.value === null) || (isConst(sep) && sep.value === null)) return materialize(null, t, n, alloc);
  const s = isConst(str) ? strViewOf(materialize(str.value, { kind: 'utf8' }, n, alloc)) : strViewOf(str);
  const validity = andValidity(alloc, n, isConst(str) ? null : validityOf(str), isConst(sep) ? null : validityOf(sep));
  const sepConst = isConst(sep) ? ENCODER.encode(String(sep.value)) : null;
  const sv = isConst(sep) ? null : strViewOf(sep);
  const offsets = alloc(Int32Array, n + 1) as Int32Array;
  const childOffsets = new Int32Builder();
  childOffsets.push(0);
  const bytes = new ByteBuilder();
  const src = s.bytes;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (validity && !getBit(validity, i)) {
      offsets[i + 1] = count;
      continue;
    }
    let p = s.offsets[i];
    const end = s.offsets[i + 1];
    let sepBytes: Uint8Array;
    let sp = 0;
    let sl: number;
    if (sepConst) {
      sepBytes = sepConst;
      sl = sepConst.length;
    } else {
      sepBytes = sv!.bytes;
      sp = sv!.offsets[i];
      sl = sv!.offsets[i + 1] - sp;
    }
    if (sl === 0) {
      // split into UTF-8 characters; '' gives ['']
      if (p === end) {
        childOffsets.push(bytes.length);
        count++;
      }
      while (p < end) {
        let q = p + 1;
        while (q < end && (src[q] & 0xc0) === 0x80) q++;
        bytes.append(src, p, q);
        childOffsets.push(bytes.length);
        count++;
        p = q;
      }
    } else {
      let start = p;
      const first = sepBytes[sp];
      while (p + sl <= end) {
        if (src[p] === first) {
          let k = 1;
          while (k < sl && src[p + k] === sepBytes[sp + k]) k++;
          if (k === sl) {
            bytes.append(src, start, p);
            childOffsets.push(bytes.length);
            count++;
            p += sl;
            start = p;
            continue;
          }
        }
        p++;
      }
      bytes.append(src, start, end);
      childOffsets.push(bytes.length);
      count++;
    }
    offsets[i + 1] = count;
  }
  const child = makeResult({ kind: 'utf8' }, count, null, { data: bytes.finish(alloc), valueOffsets: childOffsets.finish(alloc) });
  return makeResult(t, n, validity, { valueOffsets: offsets, child });
}

/** Reads an int64 operand (column or constant) as a double per row. */
function int64Numbers(v: Val, n: number): Float64Array {
  const out = new Float64Array(n);
  if (isConst(v)) {
    if (v.value !== null) out.fill(Number(v.value));
    return out;
  }
  const a = v.values as BigInt64Array;
  const lo = new Uint32Array(a.buffer, a.byteOffset, n * 2);
  const hi = new Int32Array(a.buffer, a.byteOffset, n * 2);
  for (let i = 0; i < n; i++) out[i] = hi[2 * i + 1] * 4294967296 + lo[2 * i];
  return out;
}

export function slice(t: TypeDesc, lt: TypeDesc, list: Val, start: Val, len: Val, n: number, alloc: Alloc): Data {
  if ([list, start, len].some((v) => isConst(v) && v.value === null)) return materialize(null, t, n, alloc);
  if (isConst(list)) throw new Error('slice: constant list');
  const { offsets, child } = listViewOf(list, lt, n);
  const st = int64Numbers(start, n);
  const ln = int64Numbers(len, n);
  const validity = andValidity(alloc, n, validityOf(list), isConst(start) ? null : validityOf(start), isConst(len) ? null : validityOf(len)) ??
    allocBits(alloc, n).fill(0xff);
  const out = alloc(Int32Array, n + 1) as Int32Array;
  const starts = new Float64Array(n);
  const counts = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    out[i] = total;
    if (!getBit(validity, i)) continue;
    const size = offsets[i + 1] - offsets[i];
    const s = st[i];
    const l = ln[i];
    if (l < 0) {
      validity[i >> 3] &= ~(1 << (i & 7));
      continue;
    }
    const idx = s > 0 ? s - 1 : s < 0 ? size + s : 0;
    if (idx < 0 || idx >= size) continue;
    const c = Math.min(l, size - idx);
    starts[i] = offsets[i] + idx;
    counts[i] = c;
    total += c;
  }
  out[n] = total;
  const ends = new Float64Array(n);
  for (let i = 0; i < n; i++) ends[i] = starts[i] + counts[i];
  return makeResult(t, n, validity, { valueOffsets: out, child: gatherRanges(child, starts, ends, n, alloc) });
}


const MAX_ELEMENTS = 0x7fffffff;

export function sequence(t: TypeDesc, start: Val, stop: Val, n: number, alloc: Alloc): Data {
  if ((isConst(start) && start.value === null) || (isConst(stop) && stop.value === null)) return materialize(null, t, n, alloc);
  const validity = andValidity(alloc, n, isConst(start) ? null : validityOf(start), isConst(stop) ? null : validityOf(stop));
  const A = isConst(start) ? null : (start.values as BigInt64Array);
  const B = isConst(stop) ? null : (stop.values as BigInt64Array);
  const sa = isConst(start) ? BigInt(start.value as bigint) : 0n;
  const sb = isConst(stop) ? BigInt(stop.value as bigint) : 0n;
  const offsets = alloc(Int32Array, n + 1) as Int32Array;
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!validity || getBit(validity, i)) {
      const a = A ? A[i] : sa;
      const b = B ? B[i] : sb;
      const len = (a <= b ? b - a : a - b) + 1n;
      if (len + BigInt(total) > BigInt(MAX_ELEMENTS)) {
        throw new ExecutionError('SEQUENCE_TOO_LONG', `sequence(${a}, ${b}) at row ${i} would make more than ${MAX_ELEMENTS} elements in one batch`, { row: i });
      }
      total += Number(len);
    }
    offsets[i + 1] = total;
  }
  const out = alloc(BigInt64Array, total) as BigInt64Array;
  const lo = new Uint32Array(out.buffer, out.byteOffset, total * 2);
  const hi = new Int32Array(out.buffer, out.byteOffset, total * 2);
  for (let i = 0; i < n; i++) {
    let p = offsets[i];
    const e = offsets[i + 1];
    if (p === e) continue;
    const a = A ? A[i] : sa;
    const b = B ? B[i] : sb;
    const step = a <= b ? 1 : -1;
    const safe = a >= -(2n ** 53n) && a <= 2n ** 53n && b >= -(2n ** 53n) && b <= 2n ** 53n;
    if (safe) {
      for (let v = Number(a); p < e; p++, v += step) {
        const h = Math.floor(v / 4294967296);
        hi[2 * p + 1] = h;
        lo[2 * p] = v - h * 4294967296;
      }
    } else {
      const s = BigInt(step);
      for (let v = a; p < e; p++, v += s) out[p] = v;
    }
  }
  const child = makeResult({ kind: 'int', bits: 64, signed: true }, total, null, { data: out });
  return makeResult(t, n, validity, { valueOffsets: offsets, child });
}

