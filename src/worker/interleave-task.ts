/**
 * The second pass of staged direct outputs (DirectStaging in src/types/tasks): one column's
 * values, written task by task, put in row order: dst[r] = src[pos[r]], a gather of rows
 * [start, end). Each task's rows are in ascending row order in its stretch of `src`, so the
 * reads are a few sequential streams (one per task) and the writes are sequential: a cache line
 * a few values, where writing in place from each task took one a value.
 */
import { gatherWords, rowWords } from '../columns/gather.js';
import { viewOf } from '../columns/shared.js';
import type { InterleaveTask } from '../types/tasks.js';

export function runInterleaveTask(task: InterleaveTask): null {
  const { start, end, width } = task;
  const dst = viewOf(Uint8Array, task.dst).subarray(start * width, end * width);
  // Moved as the widest words the width allows (8 bytes as float64: every bit kept, see rowWords).
  const words = rowWords(viewOf(Uint8Array, task.src), dst, width);
  gatherWords(words.src, words.dst, words.w, viewOf(Int32Array, task.pos).subarray(start, end), end - start);
  return null;
}
