/**
 * Broadcast join, build side (one task for the whole right input, when it is small):
 *
 * 1. the right key columns as key views (./join-keys; a right side scaled by 1 only changes
 *    type, so the views stay over the shared input);
 * 2. the hash table of ./group-ids buildJoinTable into the coordinator's `table` buffer (slots
 *    for twice the rows: it never grows); NULL keys get no group unless nullsEqual;
 * 3. right rows grouped by group with one stable counting scatter (group g's rows are a run in
 *    right input order), and the largest group (how many rows one left row can match);
 * 4. every key view array that is not a view of the input (NULL bytes, bool bytes, 32-bit
 *    offsets of large strings) copied into the table too.
 * The table outlives the task: probe tasks in every thread view it (./join-probe-task). The
 * buffer's layout and size: src/ops/join-table-layout. Cost: O(rows).
 */
import { SharedArena } from '../columns/arena.js';
import { bufRefOf, rebuildData } from '../columns/shared.js';
import { joinTableSlots } from '../ops/join-table-layout.js';
import { countingScatter } from '../shuffle/hash.js';
import type { KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import type { JoinBuildTask, JoinTableDesc, SharedKeyColumn, TypedArrayName } from '../types/tasks.js';
import { buildJoinTable } from './group-ids.js';
import { sideKeys } from './join-keys.js';
import { scratchAlloc } from './scratch.js';

export function runJoinBuildTask(task: JoinBuildTask): JoinTableDesc {
  const n = task.rows;
  const columns = task.right.map(rebuildData);
  const keys = sideKeys(columns, n, task.keys, task.scales, 'right');
  if (keys.never !== null) throw new Error('internal: a broadcast join scales no right key');
  const arena = new SharedArena(1 << 16, task.table, true);
  const store = { slots: arena.alloc(Int32Array, joinTableSlots(n)), ghash: arena.alloc(Uint32Array, n), first: arena.alloc(Uint32Array, n) };
  const ids = scratchAlloc(Int32Array, n);
  const groups = buildJoinTable(keys.columns, n, task.nullsEqual, store, ids, scratchAlloc(Uint32Array, n));

  const bucket = new Uint32Array(ids.buffer, ids.byteOffset, n);
  for (let j = 0; j < n; j++) if (ids[j]! < 0) bucket[j] = groups; // no group: the extra last bucket
  const order = arena.alloc(Uint32Array, n);
  const { offsets } = countingScatter(bucket, groups + 1, order);
  const starts = arena.alloc(Uint32Array, groups + 2);
  starts.set(offsets.subarray(0, groups + 2));
  let maxGroup = 0;
  for (let g = 0; g < groups; g++) maxGroup = Math.max(maxGroup, starts[g + 1]! - starts[g]!);

  const inputs = new Set<ArrayBufferLike>();
  for (const c of columns) for (const b of [c.values, c.valueOffsets, c.nullBitmap] as Array<ArrayBufferView | undefined>) if (b) inputs.add(b.buffer);
  const keep = <T extends TypedArray>(a: T): T => {
    if (inputs.has(a.buffer)) return a;
    const copy = arena.alloc(a.constructor as TypedArrayConstructor<T>, a.length);
    (copy as unknown as { set(x: T): void }).set(a);
    return copy;
  };
  const shared = keys.columns.map((k) => sharedKey(k, keep));
  if (arena.reserved > 0) throw new Error(`internal: the join table needed ${arena.allocated} bytes, more than the ${task.table.byteLength} reserved`);
  return { rows: n, groups, maxGroup, keys: shared, slots: bufRefOf(store.slots), ghash: bufRefOf(store.ghash), first: bufRefOf(store.first), starts: bufRefOf(starts), order: bufRefOf(order) };
}

function sharedKey(k: KeyColumn, keep: <T extends TypedArray>(a: T) => T): SharedKeyColumn {
  const values = keep(k.values);
  return {
    type: k.type,
    length: k.length,
    values: bufRefOf(values),
    ctor: values.constructor.name as TypedArrayName,
    offsets: k.offsets ? bufRefOf(keep(k.offsets)) : null,
    valid: k.valid ? bufRefOf(keep(k.valid)) : null,
  };
}
