/**
 * Assembly of one row-id range of an output exchange, run in a worker: the range's pieces from
 * every partition (in memory or spilled) → one position per row (row id - base; every row of
 * the range exactly once, checked) → one gather per column into transferable buffers, so the
 * rows come out in row-id order, ready to be attached to the replayed input rows.
 * Sparse ranges (group-by: a row per group keyed by its first row id; join: any number of rows
 * per left row id) are put in key order instead: loadPartition's stable order by row id, which
 * keeps the rows of one key in the order their task wrote them; their keys go back too.
 * Cost: O(rows × columns).
 */
import * as A from 'apache-arrow';
import { slabFor, TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { dataBytes, describeData } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import type { AssembleSparseTask, AssembleTask, ColumnsResult, SparseColumnsResult } from '../types/tasks.js';
import { loadPartition } from './partition-input.js';
import { scratchAlloc } from './scratch.js';

export async function runAssembleTask(task: AssembleTask): Promise<ColumnsResult> {
  // Rows are placed by id below: their load order does not matter (no sort of interleaved pieces).
  const part = await loadPartition(task.input, true);
  const { base, rows } = task;
  if (part.n !== rows) throw lost(`holds ${part.n} rows, expected ${rows}`, base);
  const pos = scratchAlloc(Int32Array, rows).fill(-1);
  for (let k = 0; k < rows; k++) {
    const at = part.rowIds[k]! - base;
    if (at < 0 || at >= rows || pos[at] !== -1) throw lost(`has row id ${part.rowIds[k]} out of place`, base);
    pos[at] = k;
  }
  const arena = new TransferArena();
  const columns = part.columns.map((c) => describeData(gatherData(c, pos, rows, arena.alloc), true));
  return { length: rows, columns, transfer: arena.buffers };
}

function lost(what: string, base: number): ExecutionError {
  return new ExecutionError('INTERNAL', `output range at row ${base} ${what}; refusing to return a partial result`);
}

export async function runAssembleSparseTask(task: AssembleSparseTask): Promise<SparseColumnsResult> {
  const part = await loadPartition(task.input);
  const n = part.n;
  const arena = new TransferArena(slabFor(4 * n + part.columns.reduce((t, c) => t + dataBytes(c), 0)));
  const ids = arena.alloc(Uint32Array, n);
  for (let k = 0; k < n; k++) {
    const id = part.rowIds[k]!;
    if (id < task.base || id >= task.end) throw lost(`has row id ${id} out of place`, task.base);
    ids[k] = id;
  }
  const all = scratchAlloc(Int32Array, n);
  for (let k = 0; k < n; k++) all[k] = k;
  const columns = part.columns.map((c) => describeData(gatherData(c, all, n, arena.alloc), true));
  const rowIds = describeData(A.makeData({ type: new A.Uint32(), length: n, data: ids }), true);
  return { length: n, columns, rowIds, transfer: arena.buffers };
}
