/**
 * A pool of SharedArrayBuffers the engine reuses across slabs and runs.
 *
 * First-touching memory is the dominant cost of a large run on this platform (~4 ms per MB of
 * page faults, against ~0.05 ms per MB to rewrite mapped memory), and the buffers that carry
 * slabs to the partition tasks and partitioned rows to the kernel tasks are the engine's own:
 * they never reach the user. So they come from here and go back when their run phase is over.
 * Results handed to the user are never pooled. The pool keeps at most `maxBytes` and is emptied
 * by Engine.close().
 */
export class BufferPool {
  private readonly free: SharedArrayBuffer[] = [];
  private held = 0;

  constructor(private readonly maxBytes: number) {}

  /** A buffer of at least `bytes` (contents unspecified: callers overwrite what they use). */
  take(bytes: number): SharedArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const b = this.free[i]!;
      // Take the smallest that fits, but not one more than twice as big (it would waste memory).
      if (b.byteLength >= bytes && b.byteLength <= bytes * 2 + 65536 && (best < 0 || b.byteLength < this.free[best]!.byteLength)) best = i;
    }
    if (best >= 0) {
      const b = this.free.splice(best, 1)[0]!;
      this.held -= b.byteLength;
      return b;
    }
    return new SharedArrayBuffer(Math.max(8, Math.ceil(bytes / 8) * 8));
  }

  /** Returns buffers nobody references any more. */
  give(buffers: Iterable<SharedArrayBuffer>): void {
    for (const b of buffers) {
      if (this.held + b.byteLength > this.maxBytes) continue;
      this.free.push(b);
      this.held += b.byteLength;
    }
  }

  get bytes(): number {
    return this.held;
  }

  clear(): void {
    this.free.length = 0;
    this.held = 0;
  }
}
