/**
 * Explode one batch of arrow columns (runs in a worker, or inline).
 *
 * Steps:
 *   1. View each evaluated input (List, LargeList, FixedSizeList or Map `Data`, any offset) as
 *      kernel arrays: its row offsets (already relative to the slice, absolute into the child),
 *      or its fixed size, and one validity byte per row.
 *   2. `explodePlan` validates lengths (EXPLODE_LENGTH_MISMATCH before anything else) and
 *      returns each input row's first output row and element count.
 *   3. Each output column is built from the plan (src/columns/runs): a kept column repeats each
 *      row; a list's elements are its child's ranges, which already lie in output order, copied
 *      as blocks (LIST<STRUCT> stays one struct column); a MAP's keys and values are the same
 *      ranges of the entries struct's two children; ordinality is numbered per row, with a
 *      validity bitmap only for all-NULL rows.
 *
 * Outputs are contiguous (offset 0) and allocated by `alloc` (shared memory by default), but
 * an element column of strings may share its bytes with the list's child (src/columns/runs).
 * Complexity: O(n * inputs + out * columns + copied bytes).
 */
import { Data, Int32, Type, makeData } from 'apache-arrow';
import type { FixedSizeList } from 'apache-arrow';
import { sharedAlloc } from '../columns/arena.js';
import type { Allocator } from '../columns/gather.js';
import { copyRanges, repeatRows } from '../columns/runs.js';
import { explodeOrdinality, explodePlan } from './explode.js';
import type { ExplodeListInput, ExplodePlan } from './explode.js';
import type { ExplodeSource, ResolvedExplode } from './explode-spec.js';

export function explodeBatch(
  columns: Data[],
  inputs: Data[],
  spec: ResolvedExplode,
  rowBase: number,
  alloc: Allocator = sharedAlloc,
  scratchInt32?: (length: number) => Int32Array,
): Data[] {
  const plan = explodeBatchPlan(inputs, spec, rowBase, scratchInt32);
  return spec.sources.map((src) => explodeSourceColumn(src, plan, columns, inputs, alloc, scratchInt32));
}

/** Steps 1-2: the lists' lengths checked (EXPLODE_LENGTH_MISMATCH names row rowBase + r) and each input row's output rows. */
export function explodeBatchPlan(inputs: Data[], spec: ResolvedExplode, rowBase: number, scratchInt32?: (length: number) => Int32Array): ExplodePlan {
  if (inputs.length !== spec.inputKinds.length) {
    throw new Error(`explodeBatch: ${inputs.length} evaluated inputs for ${spec.inputKinds.length} explode inputs`);
  }
  return explodePlan({
    lists: inputs.map((d, i) => listInput(d, spec.inputKinds[i], spec.inputNames[i])),
    names: spec.inputNames,
    ignoreEmptyAndNull: spec.ignoreEmptyAndNull,
    rowBase,
    scratchInt32,
  });
}

/** Step 3 for one output column: `columns` are the batch's, `inputs` the evaluated lists. */
export function explodeSourceColumn(
  src: ExplodeSource,
  plan: ExplodePlan,
  columns: Data[],
  inputs: Data[],
  alloc: Allocator,
  scratchInt32?: (length: number) => Int32Array,
): Data {
  if (src.kind === 'column') return repeatRows(columns[src.column], plan, alloc, scratchInt32);
  if (src.kind === 'ordinality') return ordinalityData(explodeOrdinality(plan, alloc(Int32Array, plan.length) as Int32Array), plan.length, plan.length - plan.elements, alloc);
  return copyRanges(elementData(src, inputs), plan, plan.starts[src.input], alloc, scratchInt32);
}

/** The child whose ranges an element source copies: a list's elements, a map's keys or values. */
export function elementData(src: Extract<ExplodeSource, { input: number }>, inputs: Data[]): Data {
  const entries = inputs[src.input].children[0];
  return src.kind === 'element' ? entries : entries.children[src.kind === 'mapKey' ? 0 : 1];
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

function ordinalityData(ord: Int32Array, n: number, nulls: number, alloc: Allocator): Data {
  let nullBitmap: Uint8Array | undefined;
  if (nulls > 0) {
    nullBitmap = alloc(Uint8Array, ((n + 63) >>> 6) << 3) as Uint8Array;
    for (let i = 0; i < n; i++) if (ord[i] !== 0) nullBitmap[i >>> 3] |= 1 << (i & 7);
  }
  return makeData({ type: new Int32(), length: n, nullCount: nulls, nullBitmap, data: ord });
}
