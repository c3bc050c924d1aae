/**
 * Per-thread scratch memory for task temporaries, reused from task to task.
 *
 * On this platform touching fresh memory costs ~4 ms per MB (page faults), ~80× rewriting
 * memory already mapped, and a task's temporaries (its partition made contiguous, permuted keys,
 * kernel outputs) are hundreds of MB at 10M rows. So each thread keeps one buffer, hands out
 * zero-filled, 8-byte-aligned views bump-style, and when a task needed more than it held, the
 * next task starts with a buffer big enough for that peak. Nothing allocated here may outlive the
 * task: `resetScratch()` at the start of every task reclaims it all.
 */
import type { TypedArray } from '../types/keys.js';
import type { Allocator } from '../columns/arena.js';

let buffer = new ArrayBuffer(0);
let used = 0;
let wanted = 0;

/** Starts a task: every earlier scratch view becomes invalid. */
export function resetScratch(): void {
  if (wanted > buffer.byteLength) buffer = new ArrayBuffer(Math.ceil((wanted * 1.25) / 8) * 8);
  used = 0;
  wanted = 0;
}


export const scratchAlloc: Allocator = <T extends TypedArray>(ctor: { new (b: ArrayBufferLike, o: number, l: number): T; new (n: number): T; BYTES_PER_ELEMENT: number }, length: number): T => {
  const bytes = Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8;
  wanted += bytes;
  if (used + bytes <= buffer.byteLength) {
    new Uint8Array(buffer, used, bytes).fill(0);
    const out = new ctor(buffer, used, length);
    used += bytes;
    return out;
  }
  return new ctor(length);
};
