/**
 * Explode one batch of arrow columns (runs in a worker, or inline).
 *
 * Steps:
 *   1. View each evaluated input (List, LargeList, FixedSizeList or Map `Data`, any offset) as
 *      kernel arrays: its row offsets (already relative to the slice, absolute into the child),
 *      or its fixed size, and one validity byte per row.
 *   2. `explodeIndices` validates lengths (EXPLODE_LENGTH_MISMATCH before anything else) and
 *      returns parent / child / ordinality index arrays.
 *   3. Each output column is one gather: a kept column by parent indices; a list's elements by
 *      its child indices into the list's child Data (LIST<STRUCT> stays one struct column); a
 *      MAP's keys and values by the same indices into the entries struct's two children;
 *      ordinality is the kernel's Int32Array, with a validity bitmap only for all-empty rows.
 *
 * Outputs are contiguous (offset 0) and allocated by `alloc` (shared memory by default).
 * Complexity: O(n * inputs + out * columns + copied bytes).
 */
import { Data, Int32, Type, makeData } from 'apache-arrow';
import type { FixedSizeList } from 'apache-arrow';
import { gatherData } from '../columns/gather.js';
import { sharedAlloc } from '../columns/arena.js';
import type { Allocator } from '../columns/gather.js';
import { explodeIndices } from '../ops/explode.js';
import type { ExplodeListInput } from '../ops/explode.js';
import type { ResolvedExplode } from '../ops/explode-spec.js';

export function explodeBatch(
  columns: Data[],
  inputs: Data[],
  spec: ResolvedExplode,
  rowBase: number,
  alloc: Allocator = sharedAlloc,
  scratchInt32?: (length: number) => Int32Array,
): Data[] {
  if (inputs.length !== spec.inputKinds.length) {
    throw new Error(`explodeBatch: ${inputs.length} evaluated inputs for ${spec.inputKinds.length} explode inputs`);
  }
  const wantOrd = spec.ordinality !== null;
  const idx = explodeIndices({
    lists: inputs.map((d, i) => listInput(d, spec.inputKinds[i], spec.inputNames[i])),
    names: spec.inputNames,
    ignoreEmptyAndNull: spec.ignoreEmptyAndNull,
    rowBase,
    ordinality: wantOrd,
    allocInt32: (n) => alloc(Int32Array, n) as Int32Array,
    scratchInt32,
  });
  const n = idx.length;
  return spec.sources.map((src) => {
    switch (src.kind) {
      case 'column':
        return gatherData(columns[src.column], idx.parent, n, alloc);
      case 'element':
        return gatherData(inputs[src.input].children[0], idx.child[src.input], n, alloc);
      case 'mapKey':
        return gatherData(inputs[src.input].children[0].children[0], idx.child[src.input], n, alloc);
      case 'mapValue':
        return gatherData(inputs[src.input].children[0].children[1], idx.child[src.input], n, alloc);
      case 'ordinality':
        return ordinalityData(idx.ordinality as Int32Array, n, alloc);
    }
  });
}

const KIND_OF: Partial<Record<number, ExplodeListInput['kind']>> = {
  [Type.List]: 'list',
  [Type.LargeList]: 'largeList',
  [Type.FixedSizeList]: 'fixedSizeList',
  [Type.Map]: 'map',
};

function listInput(d: Data, expected: ExplodeListInput['kind'], name: string): ExplodeListInput {
  const kind = KIND_OF[d.type.typeId];
  if (kind !== expected) throw new Error(`explodeBatch: input ${name} evaluated to ${String(d.type)}, planned as ${expected}`);
  const n = d.length;
  const valid = validBytes(d);
  if (kind === 'fixedSizeList') return { kind, size: (d.type as FixedSizeList).listSize, valid, n };
  return { kind, offsets: d.valueOffsets as unknown as Int32Array | BigInt64Array, valid, n };
}

/** One byte per row (1 = valid), or null when the Data has no NULLs. */
function validBytes(d: Data): Uint8Array | null {
  const bm = d.nullBitmap as Uint8Array | undefined;
  if (!bm || bm.length === 0 || d.nullCount === 0) return null;
  const n = d.length;
  const off = d.offset;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = off + i;
    out[i] = (bm[b >>> 3] >>> (b & 7)) & 1;
  }
  return out;
}

function ordinalityData(ord: Int32Array, n: number, alloc: Allocator): Data {
  let nulls = 0;
  for (let i = 0; i < n; i++) if (ord[i] === 0) nulls++;
  let nullBitmap: Uint8Array | undefined;
  if (nulls > 0) {
    nullBitmap = alloc(Uint8Array, ((n + 63) >>> 6) << 3) as Uint8Array;
    for (let i = 0; i < n; i++) if (ord[i] !== 0) nullBitmap[i >>> 3] |= 1 << (i & 7);
  }
  return makeData({ type: new Int32(), length: n, nullCount: nulls, nullBitmap, data: ord });
}
