/**
 * The one buffer a run's spill merges write into (src/shuffle/exchange.ts writeSegments): a
 * thread-local buffer made at the first spill, counted (`spill.merge`) while a merge writes into
 * it, kept mapped between spills (at most two pieces' worth, 5% of a 64 MiB budget at 2
 * threads), and given back, pages and all, when the run ends.
 *
 * Each spill of an exchange merges its destinations' rows into messages before one write. A
 * fresh mapping per spill (and giving it back after) took 1.7 s of the coordinator in a
 * 10M x 10M ASOF at 64 MiB; a buffer taken from and given back to the BufferPool made other
 * pooled buffers leave the pool's cache for the collector (VmHWM +130 MiB at 100M rows and
 * 64 MiB); one counted for the whole run made that run spill 20% more and take 50% longer.
 * Spills of different exchanges take turns on it.
 */
import type { MemoryBudget, Reservation } from './budget.js';
import { newLocalBuffer, releaseLocalBuffer } from './mapped-buffers.js';

export class MergeBuffer {
  private buffer: ArrayBuffer | null = null;
  private readonly reservation: Reservation;
  private turn: Promise<void> = Promise.resolve();

  constructor(budget: MemoryBudget) {
    this.reservation = budget.reserve('spill.merge');
  }

  /**
   * Runs `use` alone on the buffer; `room(bytes)` gives it with at least `bytes` (wanting
   * `preferred` when it must be made or grown), or null when the budget cannot hold that.
   */
  async use<T>(preferred: number, use: (room: (bytes: number) => Uint8Array | null) => Promise<T>): Promise<T> {
    const previous = this.turn;
    let done!: () => void;
    this.turn = new Promise<void>((resolve) => (done = resolve));
    await previous;
    try {
      return await use((bytes) => this.room(bytes, preferred));
    } finally {
      this.reservation.free();
      done();
    }
  }

  private room(bytes: number, preferred: number): Uint8Array | null {
    if (this.buffer && this.buffer.byteLength >= bytes && this.grow(this.buffer.byteLength) !== null) return new Uint8Array(this.buffer);
    const size = this.grow(Math.max(bytes, preferred)) ?? this.grow(bytes);
    if (this.buffer) releaseLocalBuffer(this.buffer);
    this.buffer = null;
    if (size === null) return null;
    this.buffer = newLocalBuffer(size);
    return new Uint8Array(this.buffer);
  }

  /** The reservation resized to `size` (the buffer being used or made); null if it cannot. */
  private grow(size: number): number | null {
    return this.reservation.tryResize(size) ? size : null;
  }

  /** Gives the buffer back (the run ended). */
  release(): void {
    if (this.buffer) releaseLocalBuffer(this.buffer);
    this.buffer = null;
    this.reservation.free();
  }
}
