/**
 * Bump allocation of typed arrays inside a few large SharedArrayBuffers.
 *
 * Creating a SharedArrayBuffer costs ~30 µs on this platform (measured: 40k of them took
 * 1.3 s), so a task that builds many small columns carves them out of shared slabs instead.
 * Every allocation is 8-byte aligned and zero-filled. An arena may start from a given buffer
 * (from the engine's BufferPool): allocations go there while they fit.
 */
import { newGrowableLocalBuffer, newLocalBuffer, newSharedBuffer, releaseLocalBuffer } from '../memory/mapped-buffers.js';
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

/** What a result arena reserves for one buffer unless told (address space only: see TransferArena). */
const RESULT_RESERVE = 64 * 1024 * 1024;
/** A growing result buffer is committed in multiples of this many bytes... */
const GROW_STEP = 64 * 1024;
/**
 * ...and at least doubles each time, up to this much more: each resize is a system call that
 * changes the page table of a process whose other threads run (measured: growing to each
 * array's end cost explode 30% more CPU, 15% more time). Committed pages cost nothing until
 * written.
 */
const GROW_MAX = 16 * 1024 * 1024;

/**
 * Bump allocation in thread-local ArrayBuffers whose list is kept, so a worker can transfer
 * them with its result (no copy, and no view left behind in the worker), or their owner can
 * give their pages back at once when done (`release`: the exchange's spill merges).
 *
 * A task's result goes into one growable buffer (address space for `reserveBytes` reserved,
 * pages committed as the arrays are carved out), not a buffer per column: every ArrayBuffer a
 * thread receives is external memory V8 accounts for, and while incremental marking runs each
 * one advances it a step, so receiving a buffer per column kept the coordinator's collector
 * marking nonstop (10M x 1M join: 119 mark-compacts and 0.7 s of pauses a run; one buffer per
 * result: 45 and 0.2 s). An array that does not fit what is left starts another buffer.
 * `reserveBytes` 0: every array gets its own exactly sized buffer (a caller that counts each).
 */
export class TransferArena {
  readonly buffers: ArrayBuffer[] = [];
  private slab: ArrayBuffer | null = null;
  private used = 0;

  constructor(private readonly reserveBytes = RESULT_RESERVE) {}

  readonly alloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number): T => {
    const bytes = Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8;
    if (this.reserveBytes === 0) {
      const own = newLocalBuffer(Math.max(bytes, 8));
      this.buffers.push(own);
      return new ctor(own, 0, length);
    }
    if (!this.slab || this.used + bytes > this.slab.maxByteLength) {
      this.slab = newGrowableLocalBuffer(Math.max(this.reserveBytes, bytes), bytes);
      this.buffers.push(this.slab);
      this.used = 0;
    }
    const end = this.used + bytes;
    const have = this.slab.byteLength;
    if (end > have) this.slab.resize(Math.min(this.slab.maxByteLength, Math.ceil(Math.max(end, Math.min(2 * have, have + GROW_MAX)) / GROW_STEP) * GROW_STEP));
    const out = new ctor(this.slab, this.used, length);
    this.used = end;
    return out;
  };

  /** Gives every buffer's pages back now (nothing may read what was allocated afterwards). */
  release(): void {
    for (const b of this.buffers) releaseLocalBuffer(b);
    this.buffers.length = 0;
    this.slab = null;
    this.used = 0;
  }
}

/** A result arena's reservation for about `bytes` of arrays (alignment and bitmaps may add a little; more starts a second buffer). */
export function reserveFor(bytes: number): number {
  return Math.ceil((bytes * 1.125 + 256 * 1024) / GROW_STEP) * GROW_STEP;
}

/** One SharedArrayBuffer per array (for the few, large, long-lived outputs). */
export const sharedAlloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number): T => {
  const bytes = Math.max(8, Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8);
  return new ctor(newSharedBuffer(bytes), 0, length);
};

/** Thread-local memory, for scratch arrays that never leave the worker. */
export const localAlloc: Allocator = <T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number): T =>
  new ctor(newLocalBuffer(Math.max(8, Math.ceil((length * ctor.BYTES_PER_ELEMENT) / 8) * 8)), 0, length);
