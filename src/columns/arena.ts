/**
 * Bump allocation of typed arrays inside a few large SharedArrayBuffers.
 *
 * Creating a SharedArrayBuffer costs ~30 µs on this platform (measured: 40k of them took
 * 1.3 s), so a task that builds many small columns carves them out of shared slabs instead.
 * Every allocation is 8-byte aligned and zero-filled. An arena may start from a given buffer
 * (from the engine's BufferPool): allocations go there while they fit.
 */
import { newHeapLocalBuffer, newLocalBuffer, newSharedBuffer, releaseLocalBuffer } from '../memory/mapped-buffers.js';
import type { AllocFill, Allocator, TypedArray, TypedArrayConstructor } from '../types/keys.js';

export type { Allocator };

const DEFAULT_SLAB = 4 * 1024 * 1024;

/**
 * Zeroes `bytes` (a multiple of 8) at an 8-aligned `offset`. Through a Float64Array view: on a
 * SharedArrayBuffer, Uint8Array.fill runs ~8x slower than a Float64Array fill (measured).
 */
export function zeroBytes(buffer: ArrayBufferLike, offset: number, bytes: number): void {
  new Float64Array(buffer, offset, bytes / 8).fill(0);
}

export class SharedArena {
  private slab: SharedArrayBuffer | null = null;
  private used = 0;
  private readonly slabBytes: number;
  private readonly first: SharedArrayBuffer | null;
  private firstUsed = 0;
  /** Bytes handed out, and bytes of shared memory created (not counting `first`). */
  allocated = 0;
  reserved = 0;

  /**
   * `zeroFirst: false` skips clearing reused memory from `first`, for callers that overwrite
   * every byte they allocate (copies: toSharedData).
   */
  constructor(slabBytes = DEFAULT_SLAB, first: SharedArrayBuffer | null = null, private readonly zeroFirst = true) {
    this.slabBytes = slabBytes;
    this.first = first;
  }

  readonly alloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number, fill: AllocFill = 'zeroed'): T => {
    const bytes = Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8;
    this.allocated += bytes;
    if (this.first && this.firstUsed + bytes <= this.first.byteLength) {
      // A reused buffer holds old contents: clear what is handed out (unless the caller writes it all).
      if (this.zeroFirst && fill === 'zeroed') zeroBytes(this.first, this.firstUsed, bytes);
      const out = new ctor(this.first, this.firstUsed, length);
      this.firstUsed += bytes;
      return out;
    }
    if (bytes > this.slabBytes / 4) {
      // Large arrays get their own buffer: no waste at the end of a slab.
      this.reserved += Math.max(bytes, 8);
      return new ctor(newSharedBuffer(Math.max(bytes, 8)), 0, length);
    }
    if (!this.slab || this.used + bytes > this.slab.byteLength) {
      this.slab = newSharedBuffer(this.slabBytes);
      this.reserved += this.slabBytes;
      this.used = 0;
    }
    const out = new ctor(this.slab, this.used, length);
    this.used += bytes;
    return out;
  };

  /** Bytes used of the given first buffer. */
  get firstBytesUsed(): number {
    return this.firstUsed;
  }

  get firstBuffer(): SharedArrayBuffer | null {
    return this.first;
  }
}

/**
 * Thread-local ArrayBuffers, one per array, whose list is kept, so a worker can transfer them
 * with its result (no copy, and no view left behind in the worker; a group's small results
 * are copied instead: a task's `copyUpTo`, src/worker/entry), or their owner can give
 * their pages back at once when done (`release`, for a `releasable` arena: the exchange's
 * spill merges).
 *
 * Results come from the C heap (newHeapLocalBuffer): a run's results are freed when the caller
 * drops them, and the next run's land in that memory instead of fresh pages, which cost a page
 * fault per 4 KiB (the dominant cost of a large run on this platform). Measured, 2 threads,
 * warm runs: explode 2M -> 16.2M rows 1.72–1.77 -> 1.00–1.30 s (fresh pages 545 -> 310 MiB a
 * run), join 10M x 1M 2.56–2.67 -> 2.24–2.28 s; streaming explode at 64 MiB 7.5 -> 5.2 s,
 * VmHWM 208 -> 225 MiB. (The one growable mapped buffer per task used before faulted every
 * page in again each run; it had replaced mapped buffers per array, which cost the coordinator
 * more mark-compacts (external memory advances incremental marking) but were no faster.)
 */
export class TransferArena {
  /** The buffers to transfer (none when `shared`). */
  readonly buffers: ArrayBuffer[] = [];
  /** Every buffer handed out, shared ones included: what the task's outputs may point into. */
  readonly owned: ArrayBufferLike[] = [];

  /**
   * `releasable`: mapped buffers whose pages `release()` gives back at once. `shared`: plain
   * SharedArrayBuffers (zeroed, from the C heap), for a run's final in-memory result only: the
   * coordinator receives them without a transfer, so its collector does not count them as
   * external memory (a transferred ArrayBuffer does: in a warm ~0.6 s explode run the
   * coordinator paused ~140 ms in 38 collections, in a ~0.8 s join-int-left run ~120 ms in 9),
   * but this worker keeps a view until it collects, which the run's end asks of it (RunContext
   * handsOutShared), and so of every array the task allocates from the arena, temporaries
   * included: a streaming job's batches must not. (Row-local tasks once seemed to cost a
   * second copy of their results this way, explode's VmHWM 1.11 -> 1.63 GiB: their shared
   * buffers were not among `buffers`, so each output column looked foreign and was copied;
   * `owned` lists them.)
   */
  constructor(
    private readonly releasable = false,
    private readonly shared = false,
  ) {}

  readonly alloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number, fill: AllocFill = 'zeroed'): T => {
    const bytes = Math.max(8, Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8);
    const own = this.shared ? new SharedArrayBuffer(bytes) : this.releasable ? newLocalBuffer(bytes) : newHeapLocalBuffer(bytes, fill === 'zeroed');
    this.owned.push(own);
    if (!this.shared) this.buffers.push(own as ArrayBuffer);
    return new ctor(own, 0, length);
  };

  /** Gives every mapped buffer's pages back now (nothing may read what was allocated afterwards). */
  release(): void {
    for (const b of this.buffers) releaseLocalBuffer(b);
    this.buffers.length = 0;
  }
}

/** One SharedArrayBuffer per array (for the few, large, long-lived outputs). */
export const sharedAlloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number): T => {
  const bytes = Math.max(8, Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8);
  return new ctor(newSharedBuffer(bytes), 0, length);
};

/**
 * Thread-local memory, for arrays that stay in their thread: a worker's scratch (the ASOF and
 * join tasks' group ids), the expression evaluator's temporaries (src/expr/evaluate-data
 * plainAlloc), and the coordinator's small working arrays (sort and ASOF samples, a dense
 * group-by's order). From the C heap, zeroed, not mapped pages: a typed array over a resizable
 * ArrayBuffer (how newLocalBuffer maps pages) runs a summing loop 2x slower than over a plain
 * one in V8 11.3, and memory freed earlier is handed out again instead of fresh pages. asof warm
 * runs interleaved 1775-1925 -> 1629-1821 ms, asof-str 2381-2506 -> 2252-2434 (VmHWM +10 and
 * +30 MiB).
 */
export const localAlloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number): T =>
  new ctor(newHeapLocalBuffer(Math.max(8, Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8), true), 0, length);
