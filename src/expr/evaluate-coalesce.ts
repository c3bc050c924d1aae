/**
 * `coalesce(a, b, ...)`: per row, the first argument that is not NULL (NULL when all are).
 * Arguments are already cast to the result type (bind). Each row's value is copied once from
 * the argument it picks: fixed-width values as 32-bit words (8-byte values as two, so no BigInt
 * per row), strings as byte ranges, booleans as bits.
 */
import type { Data } from 'apache-arrow';
import type { TypeDesc } from '../types/column.js';
import { isString } from '../types/column.js';
import { allocBits, boolBitsOf, ByteBuilder, ctorOf, getBit, makeResult, strViewOf, validityOf, type Alloc } from './evaluate-data.js';
import { isConst, materialize, type Val } from './evaluate-value.js';

export function coalesce(t: TypeDesc, args: Val[], n: number, alloc: Alloc): Data {
  const cols = args.map((v) => (isConst(v) ? materialize(v.value, t, n, alloc) : v));
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
  let validity: Uint8Array | null = null;
  if (open > 0) {
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
