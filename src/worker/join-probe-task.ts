/**
 * Broadcast join, probe side: one slice of the left input against the table the build task
 * made (./join-build-task), run in any thread:
 *
 * 1. the slice's keys in common units (./join-keys), probed (./join-table): each left row's
 *    run of right rows (none, one, or a run of the rows in group order);
 * 2. output rows in left order: each left row's right rows in right input order (inner,
 *    left), or the left row alone when it has none (left); semi/anti: the left row once when it
 *    has matches / none;
 * 3. the left columns gathered per output row, unless every left row is output exactly once
 *    in order (`leftIdentity`: the coordinator keeps the batch's own columns); the right
 *    payload gathered per output row (NULL where there is no right row).
 * Outputs are built in transferable buffers, so nothing of them stays in the worker.
 * Cost: O(slice rows + output rows × columns).
 */
import type * as A from 'apache-arrow';
import { TransferArena } from '../columns/arena.js';
import { build, gatherData, gatherInlined, gatherValidity, wordView, wordWriter, writeInlineWords } from '../columns/gather.js';
import { intValues } from '../ops/dense-int-keys.js';
import { probeRowStore, ROW_STORE_BLOCK, rowStoreIds, rowStoreNarrow, rowStoreOffsets, rowStoreWide } from '../ops/join-row-store.js';
import { describeData, rebuildData, viewOf } from '../columns/shared.js';
import type { Allocator, KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import type { JoinProbeResult, JoinProbeTask, JoinRowStoreDesc, SharedKeyColumn, TypedArrayName } from '../types/tasks.js';
import { sideKeys } from './join-keys.js';
import { probeJoinTable } from './join-table.js';
import { scratchAlloc } from './scratch.js';

const CTORS: Record<TypedArrayName, TypedArrayConstructor> = {
  Int8Array,
  Int16Array,
  Int32Array,
  BigInt64Array,
  Uint8Array,
  Uint16Array,
  Uint32Array,
  BigUint64Array,
  Float32Array,
  Float64Array,
};

function keyView(k: SharedKeyColumn): KeyColumn {
  return {
    type: k.type,
    length: k.length,
    values: viewOf(CTORS[k.ctor], k.values) as TypedArray,
    offsets: k.offsets ? viewOf(Int32Array, k.offsets) : null,
    valid: k.valid ? viewOf(Uint8Array, k.valid) : null,
  };
}

export function runJoinProbeTask(task: JoinProbeTask): JoinProbeResult {
  const n = task.batch.length;
  const columns = task.batch.columns.map(rebuildData);
  const lk = sideKeys(columns, n, task.leftKeys, task.scales, 'left');
  if (task.lookup.kind === 'rowStore') return probeRowStoreTask(task, task.lookup.store, columns, lk.columns[0]!, lk.never, n);
  const t = task.lookup.table;
  // Every entry of these is written below (probeJoinTable sets run and len of every row), so
  // none is cleared first: zeroing them was 5-10% of a probe task.
  const run = scratchAlloc(Int32Array, n, 'overwritten');
  const len = scratchAlloc(Int32Array, n, 'overwritten');
  const table = { slots: viewOf(Int32Array, t.slots), layout: t.layout, nullRun: t.nullRun, nullLen: t.nullLen, directMin: t.directMin, directSpan: t.directSpan };
  probeJoinTable(t.keys.map(keyView), table, lk.columns, n, task.nullsEqual, lk.never, run, len, scratchAlloc(Uint32Array, n, 'overwritten'), scratchAlloc);
  const order = viewOf(Uint32Array, t.order);

  const how = task.how;
  const total = outputRows(how, len, n);
  const leftRows = scratchAlloc(Int32Array, total, 'overwritten');
  const pick = how === 'semi' || how === 'anti' ? null : scratchAlloc(Int32Array, total, 'overwritten');
  // Left rows are never -1; picks are -1 for the unmatched rows a left join keeps.
  const unmatched = pick === null ? 0 : expandMatches(how === 'left', run, len, order, n, leftRows, pick);
  if (pick === null) filterRows(how === 'semi', len, n, leftRows);
  return probeResult(task, columns, leftRows, total, n, (alloc) =>
    pick === null
      ? []
      : task.payload.map((p, i) => {
          const inline = task.inlined[i];
          const data = rebuildData(p);
          return inline ? gatherInlined(data, viewOf(Int32Array, inline.records), viewOf(Uint8Array, inline.lengths), pick, total, alloc, unmatched) : gatherData(data, pick, total, alloc, unmatched);
        }),
  );
}

/**
 * A probe's output: the left columns gathered per output row (none when every left row is
 * output once in order: `leftIdentity`, the coordinator keeps the slice's own), then the
 * payload's, all from one arena (shared memory for a collected run's result).
 */
function probeResult(task: JoinProbeTask, columns: A.Data[], leftRows: Int32Array, total: number, n: number, payload: (alloc: Allocator) => A.Data[]): JoinProbeResult {
  const identity = total === n && isIdentity(leftRows, total);
  const arena = new TransferArena(false, task.sharedResults);
  const out: A.Data[] = identity ? [] : task.leftOut.map((c) => gatherData(columns[c]!, leftRows, total, arena.alloc, 0));
  out.push(...payload(arena.alloc));
  return { length: total, leftIdentity: identity, columns: out.map((c) => describeData(c, true)), transfer: arena.buffers };
}

/**
 * The probe through the payload's row store (src/ops/join-row-store; a direct table of unique
 * keys, inner or left): each left row's line found by its `hit` byte, the left columns gathered
 * as above, each payload column written from the lines block by block (a block's lines stay in
 * the caches across the columns), its validity gathered by right row id.
 */
function probeRowStoreTask(task: JoinProbeTask, store: JoinRowStoreDesc, columns: A.Data[], key: KeyColumn, never: Uint8Array | null, n: number): JoinProbeResult {
  const leftRows = scratchAlloc(Int32Array, n, 'overwritten');
  const lineOf = scratchAlloc(Int32Array, n, 'overwritten');
  const unmatched = new Int32Array(1);
  const total = probeRowStore(intValues(key), never, key.valid, store.min, store.span, viewOf(Uint8Array, store.hit), n, task.how === 'left', leftRows, lineOf, unmatched);
  return probeResult(task, columns, leftRows, total, n, (alloc) => gatherRowStore(store, task.payload.map(rebuildData), lineOf, total, unmatched[0]!, alloc));
}

type StoreOutput = { kind: 'fixed'; values: TypedArray; words: Int32Array | Uint16Array | Uint8Array } | { kind: 'bytes'; offsets: Int32Array; bytes: Uint8Array; dv: DataView | null };

/** The payload columns of output rows whose lines are `lineOf` (-1: NULL), from the row store. */
function gatherRowStore(store: JoinRowStoreDesc, payload: A.Data[], lineOf: Int32Array, total: number, unmatched: number, alloc: Allocator): A.Data[] {
  const { layout } = store;
  const W = layout.words;
  const lines = viewOf(Int32Array, store.lines);
  const lens = store.lens.map((r) => viewOf(Uint8Array, r));
  const outputs: StoreOutput[] = layout.columns.map((col, c) => {
    const data = payload[c]!;
    if (col.kind === 'bytes') {
      const offsets = alloc(Int32Array, total + 1, 'overwritten');
      const size = rowStoreOffsets(lens[col.lens]!, lines, W, data.valueOffsets as Int32Array, lineOf, total, offsets);
      if (size > MAX_INT32) throw new RangeError(`join: ${size} bytes of ${String(data.type)} exceed its int32 offsets`);
      const bytes = alloc(Uint8Array, size, 'overwritten');
      return { kind: 'bytes', offsets, bytes, dv: wordWriter(bytes) };
    }
    const values = alloc((data.values as TypedArray).constructor as TypedArrayConstructor, total, 'overwritten');
    return { kind: 'fixed', values, words: wordView(values, col.width) };
  });
  const ids = scratchAlloc(Int32Array, total, 'overwritten');
  for (let from = 0; from < total; from += ROW_STORE_BLOCK) {
    const to = Math.min(total, from + ROW_STORE_BLOCK);
    rowStoreIds(lines, W, lineOf, from, to, ids);
    for (let c = 0; c < outputs.length; c++) {
      const col = layout.columns[c]!;
      const o = outputs[c]!;
      if (o.kind === 'bytes') writeInlineWords(lines, W, col.at, payload[c]!.values as Uint8Array, lineOf, from, to, o.offsets, o.bytes, o.dv);
      else if (col.width === 8) rowStoreWide(lines, W, col.at, lineOf, from, to, o.words as Int32Array);
      else rowStoreNarrow(lines, W, col.at, lineOf, from, to, o.words);
    }
  }
  return outputs.map((o, c) => {
    const data = payload[c]!;
    const [nullBitmap, nullCount] = gatherValidity(data, ids, total, alloc, unmatched);
    const type = data.type as A.DataType;
    return o.kind === 'bytes' ? build({ type, length: total, nullCount, nullBitmap, data: o.bytes, valueOffsets: o.offsets }) : build({ type, length: total, nullCount, nullBitmap, data: o.values });
  });
}

const MAX_INT32 = 0x7fffffff;

// The loops below are functions of their own, over typed arrays only: inside the task function
// (whose argument is a structured clone with maps that vary from task to task) they were
// deoptimized on nearly every task and ran interpreted until recompiled (measured: probe
// 77 ns a row in the engine against 11 ns alone).

/** Output rows of `how` for probe rows with `len` matches each. */
function outputRows(how: JoinProbeTask['how'], len: Int32Array, n: number): number {
  let total = 0;
  if (how === 'semi') for (let i = 0; i < n; i++) total += len[i]! > 0 ? 1 : 0;
  else if (how === 'anti') for (let i = 0; i < n; i++) total += len[i]! === 0 ? 1 : 0;
  else if (how === 'left') for (let i = 0; i < n; i++) total += len[i]! === 0 ? 1 : len[i]!;
  else for (let i = 0; i < n; i++) total += len[i]!;
  return total;
}

/** semi (want matches) / anti (want none): the probe rows kept, in order. */
function filterRows(want: boolean, len: Int32Array, n: number, leftRows: Int32Array): void {
  let k = 0;
  for (let i = 0; i < n; i++) if (len[i]! > 0 === want) leftRows[k++] = i;
}

/** Per output row: its probe row, and its build row (-1: none, for a kept unmatched row); returns the count of those -1s. */
function expandMatches(keepUnmatched: boolean, run: Int32Array, len: Int32Array, order: Uint32Array, n: number, leftRows: Int32Array, pick: Int32Array): number {
  let k = 0;
  let unmatched = 0;
  for (let i = 0; i < n; i++) {
    const m = len[i]!;
    if (m === 1) {
      leftRows[k] = i;
      pick[k++] = run[i]!;
    } else if (m === 0) {
      if (keepUnmatched) {
        leftRows[k] = i;
        pick[k++] = -1;
        unmatched++;
      }
    } else {
      for (let r = run[i]!, end = r + m; r < end; r++) {
        leftRows[k] = i;
        pick[k++] = order[r]!;
      }
    }
  }
  return unmatched;
}

function isIdentity(rows: Int32Array, total: number): boolean {
  for (let j = 0; j < total; j++) if (rows[j] !== j) return false;
  return true;
}
