/**
 * Broadcast join, build side (one task for the whole right input, when it is small):
 *
 * 1. the right key columns as key views (./join-keys; a right side scaled by 1 only changes
 *    type, so the views stay over the shared input);
 * 2. the table (./join-table) into the coordinator's `table` buffer, where it stays for the
 *    probe tasks of every thread (./join-probe-task);
 * 3. every key view array that is not a view of the input (NULL bytes, bool bytes, 32-bit
 *    offsets of large strings) copied into the table too.
 * The buffer's layout and size: src/ops/join-table-layout. Cost: O(rows).
 */
import { SharedArena } from '../columns/arena.js';
import { bufRefOf, rebuildData } from '../columns/shared.js';
import { joinSlotWords, joinTableSlots } from '../ops/join-table-layout.js';
import type { KeyColumn, TypedArray, TypedArrayConstructor } from '../types/keys.js';
import type { JoinBuildTask, JoinTableDesc, SharedKeyColumn, TypedArrayName } from '../types/tasks.js';
import { sideKeys } from './join-keys.js';
import { buildJoinTable } from './join-table.js';
import { scratchAlloc } from './scratch.js';

export function runJoinBuildTask(task: JoinBuildTask): JoinTableDesc {
  const n = task.rows;
  const columns = task.right.map(rebuildData);
  const keys = sideKeys(columns, n, task.keys, task.scales, 'right');
  if (keys.never !== null) throw new Error('internal: a broadcast join scales no right key');
  const arena = new SharedArena(1 << 16, task.table, true);
  const t = { slots: arena.alloc(Int32Array, joinSlotWords(task.layout) * joinTableSlots(n)), order: arena.alloc(Uint32Array, n) };
  const built = buildJoinTable(keys.columns, n, task.nullsEqual, task.layout, t, scratchAlloc(Int32Array, n), scratchAlloc(Uint32Array, n), scratchAlloc);

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
  return { rows: n, ...built, layout: task.layout, keys: shared, slots: bufRefOf(t.slots), order: bufRefOf(t.order) };
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
