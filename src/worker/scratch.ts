/**
 * A task's scratch memory: temporaries carved bump-style out of one buffer the coordinator
 * lends with the task.
 *
 * On this platform touching fresh memory costs ~4 ms per MB (page faults), ~80× rewriting
 * memory already mapped, and a task's temporaries (its partition made contiguous, sort words,
 * permuted keys, kernel outputs) are hundreds of MB at 10M rows. So the coordinator lends each
 * task a pooled SharedArrayBuffer, reserved against the memory budget for the task's duration
 * and reused by later tasks and runs. Views are zero-filled and 8-byte aligned. What does not
 * fit is allocated fresh and reported as `overflow`, so the coordinator can size the next
 * task's loan (and tests can check the estimate covered the task).
 * Nothing allocated here may outlive the task: `endScratch()` drops the loan before the reply.
 * `scratchMark` / `scratchRelease` give stack discipline to helpers that call each other in a
 * loop (the radix sort reuses its ping-pong buffers across calls that way).
 */
import type { AllocFill, TypedArray } from '../types/keys.js';
import type { ScratchUse } from '../types/tasks.js';
import { zeroBytes, type Allocator } from '../columns/arena.js';

const NONE = new ArrayBuffer(0);
let buffer: ArrayBufferLike = NONE;
let used = 0;
let high = 0;
let overflow = 0;

/** Starts a task with the coordinator's loan (null: everything is fresh memory). */
export function beginScratch(loan: SharedArrayBuffer | null): void {
  buffer = loan ?? NONE;
  used = 0;
  high = 0;
  overflow = 0;
}

/** Ends the task: the loan is no longer referenced from this thread. */
export function endScratch(): ScratchUse {
  buffer = NONE;
  const use = { used: high, overflow };
  used = 0;
  high = 0;
  overflow = 0;
  return use;
}

/** A point to return to with scratchRelease (views taken after it become invalid). */
export function scratchMark(): number {
  return used;
}

export function scratchRelease(mark: number): void {
  used = mark;
}

export const scratchAlloc: Allocator = <T extends TypedArray>(ctor: { new (b: ArrayBufferLike, o: number, l: number): T; new (n: number): T; BYTES_PER_ELEMENT: number }, length: number, fill: AllocFill = 'zeroed'): T => {
  const bytes = Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8;
  if (used + bytes <= buffer.byteLength) {
    if (fill === 'zeroed') zeroBytes(buffer, used, bytes);
    const out = new ctor(buffer, used, length);
    used += bytes;
    if (used > high) high = used;
    return out;
  }
  overflow += bytes;
  return new ctor(length);
};

/** Uint32 sort words of n rows (at least one) from the scratch, written whole by the caller before any read. */
export function scratchWords(n: number): Uint32Array {
  return scratchAlloc(Uint32Array, Math.max(n, 1), 'overwritten');
}
