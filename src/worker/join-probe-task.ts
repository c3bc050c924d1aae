/**
 * Broadcast join, probe side: one slice of the left input against the table the build task
 * made (./join-build-task), run in any thread:
 *
 * 1. the slice's keys in common units (./join-keys), probed (./group-ids probeJoinTable):
 *    the right group of each left row, or -1;
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
import { gatherData } from '../columns/gather.js';
import { describeData, rebuildData, viewOf } from '../columns/shared.js';
import type { BufRef } from '../types/column.js';
import type { KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import type { JoinProbeResult, JoinProbeTask, SharedKeyColumn, TypedArrayName } from '../types/tasks.js';
import { probeJoinTable } from './group-ids.js';
import { clearNever, sideKeys } from './join-keys.js';
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

const u32 = (ref: BufRef): Uint32Array => viewOf(Uint32Array, ref);

export function runJoinProbeTask(task: JoinProbeTask): JoinProbeResult {
  const n = task.batch.length;
  const columns = task.batch.columns.map(rebuildData);
  const t = task.table;
  const lk = sideKeys(columns, n, task.leftKeys, task.scales, 'left');
  const ids = scratchAlloc(Int32Array, n);
  const store = { slots: viewOf(Int32Array, t.slots), ghash: u32(t.ghash), first: u32(t.first) };
  probeJoinTable(t.keys.map(keyView), store, t.groups, lk.columns, n, task.nullsEqual, ids, scratchAlloc(Uint32Array, n));
  clearNever(ids, lk.never);
  const starts = u32(t.starts);
  const order = u32(t.order);

  const how = task.how;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const g = ids[i]!;
    const m = g >= 0 ? starts[g + 1]! - starts[g]! : 0;
    if (how === 'semi') total += m > 0 ? 1 : 0;
    else if (how === 'anti') total += m === 0 ? 1 : 0;
    else total += m === 0 ? (how === 'left' ? 1 : 0) : m;
  }
  const leftRows = scratchAlloc(Int32Array, total);
  const pick = how === 'semi' || how === 'anti' ? null : scratchAlloc(Int32Array, total);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const g = ids[i]!;
    const a = g >= 0 ? starts[g]! : 0;
    const b = g >= 0 ? starts[g + 1]! : 0;
    if (pick === null) {
      if ((b > a) === (how === 'semi')) leftRows[k++] = i;
      continue;
    }
    if (a === b) {
      if (how === 'left') {
        leftRows[k] = i;
        pick[k++] = -1;
      }
      continue;
    }
    for (let r = a; r < b; r++) {
      leftRows[k] = i;
      pick[k++] = order[r]!;
    }
  }

  let identity = total === n;
  for (let j = 0; identity && j < total; j++) identity = leftRows[j] === j;
  const arena = new TransferArena();
  const out: A.Data[] = identity ? [] : task.leftOut.map((c) => gatherData(columns[c]!, leftRows, total, arena.alloc));
  if (pick !== null) for (const p of task.payload) out.push(gatherData(rebuildData(p), pick, total, arena.alloc));
  return { length: total, leftIdentity: identity, columns: out.map((c) => describeData(c, true)), transfer: arena.buffers };
}
