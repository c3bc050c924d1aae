/**
 * One range of a global sort, run in a worker: the range's rows (every column) loaded in row-id
 * order → one stable radix argsort by the keys (./sort: equal keys keep row-id order, i.e.
 * input order) → every column gathered in that order into transferable buffers.
 * Cost: O(rows × (key words + columns)).
 * A range too big for one task is first sampled piece by piece (runSortSampleTask: the keys and
 * row ids of the rows chosen by their hashed row id), so the coordinator can split it by its own quantiles.
 */
import { TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { describeData, toKeyColumn } from '../columns/shared.js';
import * as A from 'apache-arrow';
import type { ColumnsResult, SortSampleTask, SortTask, SparseColumnsResult } from '../types/tasks.js';
import { fmix } from '../shuffle/hash.js';
import { loadPartition } from './partition-input.js';
import { scratchAlloc } from './scratch.js';
import { argsortKeys } from './sort.js';

export async function runSortTask(task: SortTask): Promise<ColumnsResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  const keys = task.keys.map((k) => ({ column: toKeyColumn(part.columns[k.column]!), descending: k.descending, nullsFirst: k.nullsFirst }));
  const perm = argsortKeys(keys, n, undefined, scratchAlloc(Uint32Array, n));
  const idx = new Int32Array(perm.buffer, perm.byteOffset, n);
  const arena = new TransferArena(false, task.sharedResults);
  const columns = part.columns.map((c) => describeData(gatherData(c, idx, n, arena.alloc), true));
  return { length: n, columns, transfer: arena.buffers };
}

export async function runSortSampleTask(task: SortSampleTask): Promise<SparseColumnsResult> {
  const part = await loadPartition(task.input, true);
  const { n, rowIds } = part;
  const picked = scratchAlloc(Int32Array, n);
  let m = 0;
  for (let i = 0; i < n; i++) if (fmix(rowIds[i]!) < task.threshold) picked[m++] = i;
  const idx = picked.subarray(0, m);
  const arena = new TransferArena();
  const ids = arena.alloc(Uint32Array, m);
  for (let k = 0; k < m; k++) ids[k] = rowIds[idx[k]!]!;
  const columns = task.keys.map((c) => describeData(gatherData(part.columns[c]!, idx, m, arena.alloc), true));
  return { length: m, columns, rowIds: describeData(A.makeData({ type: new A.Uint32(), length: m, data: ids }), true), transfer: arena.buffers };
}
