/**
 * Row-local task: applies a fused chain of select / withColumns / filter / explode to one
 * batch, column at a time (expressions evaluated vectorized, src/expr/evaluate). The output
 * columns are built in thread-local ArrayBuffers that travel back in the reply's transfer list:
 * the worker keeps no view of them (a worker's rare GCs would otherwise keep every batch's
 * memory alive), and the input buffer, which the coordinator reuses, is never referenced by the
 * output (columns passing through unchanged are copied).
 */
import type * as A from 'apache-arrow';
import { TransferArena } from '../columns/arena.js';
import { gatherData } from '../columns/gather.js';
import { describeData, rebuildData, toSharedData } from '../columns/shared.js';
import type { ColumnDesc } from '../types/column.js';
import { evaluate, evaluatePredicate } from '../expr/evaluate.js';
import type { ColumnsResult, RowLocalTask } from '../types/tasks.js';
import { explodeBatch } from './explode-batch.js';
import { scratchAlloc } from './scratch.js';

export function runRowLocalTask(task: RowLocalTask): ColumnsResult {
  let columns: A.Data[] = task.batch.columns.map(rebuildData);
  let length = task.batch.length;
  const arena = new TransferArena();
  const alloc = arena.alloc;

  for (const op of task.ops) {
    switch (op.kind) {
      case 'select':
        columns = op.items.map((it) => evaluate(it.expr, columns, length, alloc));
        break;
      case 'withColumns': {
        const values = op.columns.map((c) => evaluate(c.expr, columns, length, alloc));
        const next = columns.slice();
        op.columns.forEach((c, i) => {
          if (c.replace >= 0) next[c.replace] = values[i]!;
          else next.push(values[i]!);
        });
        columns = next;
        break;
      }
      case 'filter': {
        const keep = evaluatePredicate(op.predicate, columns, length);
        let count = 0;
        for (let i = 0; i < length; i++) count += keep[i]!;
        if (count === length) break;
        const idx = new Int32Array(count);
        for (let i = 0, k = 0; i < length; i++) if (keep[i]) idx[k++] = i;
        columns = columns.map((c) => gatherData(c, idx, count, alloc));
        length = count;
        break;
      }
      case 'explode': {
        const inputs = op.inputs.map((inp) => (inp.expr === null ? columns[inp.column!]! : evaluate(inp.expr, columns, length, alloc)));
        columns = explodeBatch(columns, inputs, op.spec, task.rowBase, alloc, (n) => scratchAlloc(Int32Array, n));
        length = columns.length > 0 ? columns[0]!.length : 0;
        if (columns.length === 0) length = 0;
        break;
      }
    }
  }
  const inputBuffers = new Set(task.batch.columns.flatMap(buffersOf));
  const out = columns.map((c) => (usesAny(c, inputBuffers) ? toSharedData(c, arena.alloc) : c));
  return { length, columns: out.map((c) => describeData(c, true)), transfer: arena.buffers };
}

function buffersOf(c: ColumnDesc): Array<SharedArrayBuffer | ArrayBuffer> {
  const own = [c.values?.sab, c.offsets?.sab, c.validity?.sab].filter((b): b is SharedArrayBuffer | ArrayBuffer => !!b);
  return [...own, ...c.children.flatMap(buffersOf)];
}

function usesAny(d: A.Data, buffers: Set<SharedArrayBuffer | ArrayBuffer>): boolean {
  for (const b of [d.values, d.valueOffsets, d.nullBitmap] as Array<ArrayBufferView | undefined>) if (b && buffers.has(b.buffer)) return true;
  return d.children.some((c) => usesAny(c, buffers));
}
