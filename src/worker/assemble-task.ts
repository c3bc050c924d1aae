/**
 * Assembly of one row-id range of an output exchange, run in a worker: the range's pieces from
 * every partition (in memory or spilled) → one position per row (row id - base; every row of
 * the range exactly once, checked) → one gather per column into transferable buffers, so the
 * rows come out in row-id order, ready to be attached to the replayed input rows.
 * Cost: O(rows × columns).
 */
import { TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { describeData } from '../columns/shared.js';
import { ExecutionError } from '../errors.js';
import type { AssembleTask, ColumnsResult } from '../types/tasks.js';
import { loadPartition } from './partition-input.js';
import { scratchAlloc } from './scratch.js';

export async function runAssembleTask(task: AssembleTask): Promise<ColumnsResult> {
  const part = await loadPartition(task.input);
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
