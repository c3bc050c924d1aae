/**
 * The engine's SharedArrayBuffers, reused across tasks and runs, every byte under the budget.
 *
 * First-touching memory is the dominant cost of a large run on this platform (~4 ms per MB of
 * page faults, against ~0.05 ms per MB to rewrite mapped memory), so the buffers that carry
 * slabs to partition tasks, partitioned rows to kernel tasks, task scratch and routed outputs
 * come from here and go back when their phase is over. Results handed to the user never do.
 *
 * Accounting: a buffer in use is part of the reservation that took it (`take` grows the
 * reservation by the buffer's size, `give` shrinks it). Free buffers are the budget's `cache`:
 * they count against the limit (used + held <= limit), so a reservation that needs room evicts
 * them, and `give` keeps a buffer only while there is room for it. `clear()` (Engine.close())
 * drops everything. An evicted buffer is remembered weakly until the collector takes it, so a
 * later loan of its size revives it rather than mapping a new one beside it.
 */
import type { BudgetCache, MemoryBudget, Reservation } from './budget.js';
import { nudgeCollector } from './collector-nudge.js';
import { newSharedBuffer } from './mapped-buffers.js';

/** The smallest buffer, and the step of small sizes. */
export const GRAIN = 4096;

/** How much bigger than bufferSize(bytes) a reused buffer may be (two size steps). */
const FIT_SLACK = 1.125;

/** Dropped buffers remembered for revival (the newest). */
const MAX_DROPPED = 256;

/**
 * Dropped buffers still alive past which the main thread's collector is nudged: the budget,
 * within these bounds (see forget).
 */
const MIN_DROPPED_ALIVE = 64 * 2 ** 20;
const MAX_DROPPED_ALIVE = 256 * 2 ** 20;

/** How much bigger a reused buffer may be for a loan given back when its task ends. */
const BRIEF_SLACK = 2;

/**
 * Which free buffer may serve a loan. `near`: at most FIT_SLACK bigger than the size asked
 * (a loan the exchange keeps: a bigger one would be reserved whole for the kernel phase).
 * `brief`: up to twice the size, for a loan given back when its task ends (task scratch, a
 * slab's input): reusing a bigger mapped buffer costs a few idle bytes for one task, where a
 * fresh one costs a page fault per 4 KiB and, at the budget's limit, evicts the bigger one.
 * `exact`: a fresh buffer of just bufferSize(bytes) (when room is tight).
 */
export type Fit = 'near' | 'brief' | 'exact';

/**
 * Buffer sizes come in steps (1/16 of the size's power of two, at least GRAIN), so sizes
 * repeat across slabs and runs and buffers are reused.
 */
export function bufferSize(bytes: number): number {
  if (bytes <= GRAIN) return GRAIN;
  const step = Math.max(GRAIN, 2 ** (Math.floor(Math.log2(bytes)) - 4));
  return Math.ceil(bytes / step) * step;
}

export class BufferPool implements BudgetCache {
  private readonly free: SharedArrayBuffer[] = [];
  /** Buffers evicted or not kept, until the collector takes them (see forget). */
  private readonly dropped: Array<WeakRef<SharedArrayBuffer>> = [];
  private heldBytes = 0;
  /** Bytes of the dropped buffers the collector has not taken yet (see droppedAlive). */
  private droppedBytes = 0;
  /** Bytes dropped since the collector was last nudged (see forget). */
  private droppedSince = 0;
  /** Counts a dropped buffer out when the collector takes it. */
  private readonly collected = new FinalizationRegistry<number>((bytes) => (this.droppedBytes -= bytes));
  private nudgeCount = 0;

  constructor(private readonly budget: MemoryBudget) {
    budget.cache = this;
  }

  get held(): number {
    return this.heldBytes;
  }

  /** Times the collector was nudged (tests, profiles). */
  get nudges(): number {
    return this.nudgeCount;
  }

  /** Bytes of the buffers this pool dropped that the main thread's collector has not taken yet. */
  get droppedAlive(): number {
    return this.droppedBytes;
  }

  /**
   * A buffer of at least `bytes`, its size added to `r`; null when the budget has no room.
   * Contents are unspecified: callers overwrite (or zero) what they use.
   */
  tryTake(r: Reservation, bytes: number, fit: Fit = 'near'): SharedArrayBuffer | null {
    const best = fit === 'exact' ? -1 : this.bestFit(bytes, fit === 'brief' ? BRIEF_SLACK : FIT_SLACK);
    if (best >= 0) {
      const b = this.free.splice(best, 1)[0]!;
      this.heldBytes -= b.byteLength;
      if (r.tryGrow(b.byteLength)) return b;
      // Too big for the room there is: dropped, and a buffer of just the size asked tried below.
      this.forget(b);
    }
    const size = bufferSize(bytes);
    if (fit !== 'exact' && this.budget.used + size + this.heldBytes > this.budget.limit) {
      // A fresh buffer would evict cached ones, which then wait for the collector (at a small
      // budget that was ~1.4 GB of dropped buffers in a 10M x 10M ASOF): a bigger one that
      // would go anyway serves instead.
      const spare = this.bestFit(bytes, BRIEF_SLACK);
      if (spare >= 0) {
        const b = this.free.splice(spare, 1)[0]!;
        this.heldBytes -= b.byteLength;
        if (r.tryGrow(b.byteLength)) return b;
        this.forget(b);
      }
    }
    if (!r.tryGrow(size)) return null;
    const revived = fit === 'exact' ? null : this.revive(bytes, fit === 'brief' ? BRIEF_SLACK : FIT_SLACK);
    if (revived) {
      r.shrink(size);
      if (r.tryGrow(revived.byteLength)) return revived;
      this.forget(revived);
      r.grow(size); // the room just freed: cannot fail
    }
    try {
      return newSharedBuffer(size);
    } catch (err) {
      // The system refused it: the reservation does not keep counting it.
      r.shrink(size);
      throw err;
    }
  }

  /** Like tryTake, but a budget with no room is ExecutionError MEMORY_EXHAUSTED. */
  take(r: Reservation, bytes: number): SharedArrayBuffer {
    const b = this.tryTake(r, bytes);
    if (b) return b;
    r.grow(bufferSize(bytes)); // throws the descriptive error
    throw new Error('unreachable: grow succeeded after tryTake failed');
  }

  /** Returns a buffer nobody references any more; its size leaves `r`. */
  give(r: Reservation, buffer: SharedArrayBuffer): void {
    r.shrink(buffer.byteLength);
    this.keep(buffer);
  }

  evict(bytes: number): void {
    // Oldest first (buffers are kept in the order they came back): the sizes of the phase
    // running now stay for its next loans. Largest first dropped the kernel phase's own
    // buffers and mapped new ones for every task.
    let freed = 0;
    while (freed < bytes && this.free.length > 0) {
      const b = this.free.shift()!;
      freed += b.byteLength;
      this.heldBytes -= b.byteLength;
      this.forget(b);
    }
  }

  /**
   * A buffer leaves the pool's accounting, but its memory stays mapped until the collector
   * finds it (on a quiet main thread, seconds later): remembered weakly, a later loan of its
   * size takes it back instead of mapping a new one next to it (revive).
   */
  private forget(b: SharedArrayBuffer): void {
    // One not remembered any more still counts until the collector takes it.
    if (this.dropped.length >= MAX_DROPPED) this.dropped.shift();
    const ref = new WeakRef(b);
    this.dropped.push(ref);
    this.droppedBytes += b.byteLength;
    this.collected.register(b, b.byteLength, ref);
    // The main thread collects rarely (its own heap barely grows, and V8 does not count mapped
    // SharedArrayBuffers), so dropped buffers stay mapped: a 100M-row window at a 64 MiB budget
    // held 250 MiB of them at its peak. When those not collected pass a step (and as much
    // was dropped since the last nudge), the collector is nudged.
    this.droppedSince += b.byteLength;
    const step = Math.min(MAX_DROPPED_ALIVE, Math.max(MIN_DROPPED_ALIVE, this.budget.limit));
    if (this.droppedBytes < step || this.droppedSince < step) return;
    this.droppedSince = 0;
    this.nudgeCount++;
    nudgeCollector();
  }

  /** A dropped buffer still alive that fits `bytes` like a cached one would (`slack`), taken out of the list. */
  private revive(bytes: number, slack: number): SharedArrayBuffer | null {
    const most = bufferSize(bytes) * slack;
    let best: SharedArrayBuffer | null = null;
    let at = -1;
    for (let i = this.dropped.length - 1; i >= 0; i--) {
      const b = this.dropped[i]!.deref();
      if (!b) {
        this.dropped.splice(i, 1);
        if (at > i) at--;
        continue;
      }
      if (b.byteLength >= bytes && b.byteLength <= most && (!best || b.byteLength < best.byteLength)) {
        best = b;
        at = i;
      }
    }
    if (!best) return null;
    const ref = this.dropped.splice(at, 1)[0]!;
    // In use again: no longer dropped (forget counts it again if it is dropped once more).
    if (this.collected.unregister(ref)) this.droppedBytes -= best.byteLength;
    return best;
  }

  clear(): void {
    this.free.length = 0;
    this.dropped.length = 0;
    this.heldBytes = 0;
  }

  private keep(b: SharedArrayBuffer): void {
    if (this.budget.used + this.heldBytes + b.byteLength > this.budget.limit) return this.forget(b);
    this.free.push(b);
    this.heldBytes += b.byteLength;
  }

  /**
   * The smallest free buffer that fits, but at most `slack` times bigger than the size asked:
   * a bigger one is reserved whole for as long as it is used (an exchange keeps its routing
   * buffers until the kernel phase ends), so lending up to twice the size for those made a
   * 10M x 10M ASOF hold ~1.5x its routed rows and spill.
   */
  private bestFit(bytes: number, slack: number): number {
    const most = bufferSize(bytes) * slack;
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const n = this.free[i]!.byteLength;
      if (n >= bytes && n <= most && (best < 0 || n < this.free[best]!.byteLength)) best = i;
    }
    return best;
  }
}
