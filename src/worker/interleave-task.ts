/**
 * The second pass of staged direct outputs (DirectStaging in src/types/tasks): one column's
 * values, written task by task, put in row order: dst[r] = src[pos[r]]. Each task's rows are in
 * ascending row order in its stretch of `src`, so the reads are a few sequential streams (one
 * per task) and the writes are sequential: a cache line a few values, where writing in place
 * from each task took one a value.
 */
import { viewOf } from '../columns/shared.js';
import type { InterleaveTask } from '../types/tasks.js';

export function runInterleaveTask(task: InterleaveTask): null {
  const pos = viewOf(Uint32Array, task.pos);
  const { start, end } = task;
  switch (task.width) {
    case 1:
      interleave1(viewOf(Uint8Array, task.src), viewOf(Uint8Array, task.dst), pos, start, end);
      break;
    case 2:
      interleave2(viewOf(Uint16Array, task.src), viewOf(Uint16Array, task.dst), pos, start, end);
      break;
    case 4:
      interleave4(viewOf(Int32Array, task.src), viewOf(Int32Array, task.dst), pos, start, end);
      break;
    case 8:
      // As float64 words: moved, never computed on, every bit kept (src/columns/gather rowWords).
      interleave8(viewOf(Float64Array, task.src), viewOf(Float64Array, task.dst), pos, start, end);
      break;
    default:
      throw new Error(`interleave: no ${task.width}-byte rows`);
  }
  return null;
}

// One loop per word type: each stays monomorphic (one loop over four array types would check
// the type at every access).
function interleave8(src: Float64Array, dst: Float64Array, pos: Uint32Array, start: number, end: number): void {
  for (let r = start; r < end; r++) dst[r] = src[pos[r]!]!;
}

function interleave4(src: Int32Array, dst: Int32Array, pos: Uint32Array, start: number, end: number): void {
  for (let r = start; r < end; r++) dst[r] = src[pos[r]!]!;
}

function interleave2(src: Uint16Array, dst: Uint16Array, pos: Uint32Array, start: number, end: number): void {
  for (let r = start; r < end; r++) dst[r] = src[pos[r]!]!;
}

function interleave1(src: Uint8Array, dst: Uint8Array, pos: Uint32Array, start: number, end: number): void {
  for (let r = start; r < end; r++) dst[r] = src[pos[r]!]!;
}

