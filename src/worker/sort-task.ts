/**
 * One range of a global sort, run in a worker: the range's rows (every column) loaded in row-id
 * order → one stable radix argsort by the keys (./sort: equal keys keep row-id order, i.e.
 * input order) → every column gathered in that order into transferable buffers.
 * Cost: O(rows × (key words + columns)).
 */
import { TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { describeData } from '../columns/shared.js';
import type { ColumnsResult, SortTask } from '../types/tasks.js';
import { keyColumnOf } from './key-columns.js';
import { loadPartition } from './partition-input.js';
import { scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';

export async function runSortTask(task: SortTask): Promise<ColumnsResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  const keys = task.keys.map((k) => ({ column: keyColumnOf(part.columns[k.column]!), descending: k.descending, nullsFirst: k.nullsFirst }));
  const perm = argsortKeys(keys, n, undefined, scratchAlloc(Uint32Array, n));
  const idx = new Int32Array(perm.buffer, perm.byteOffset, n);
  const arena = new TransferArena();
  const columns = part.columns.map((c) => describeData(gatherData(c, idx, n, arena.alloc), true));
  return { length: n, columns, transfer: arena.buffers };
}
