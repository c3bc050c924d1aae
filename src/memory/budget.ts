/**
 * The memory budget as named reservations (after DataFusion's MemoryPool / MemoryReservation).
 *
 * A `MemoryBudget` has a byte limit; every consumer takes a `Reservation` under a readable
 * name ("exchange p17", "sort buffer", …) and grows or shrinks it as it allocates and frees.
 * `tryGrow` answers whether the bytes fit (the caller spills when they do not); `grow` throws
 * ExecutionError MEMORY_EXHAUSTED whose text says what was asked, what is held (the largest
 * reservations) and what is free. `used` is the sum of all reservations, `peak` its maximum.
 * A reservation that is `free()`d drops out of the list (growing it again re-enters it).
 *
 * The budget is the engine's: every run of an engine draws on the same limit. Free buffers
 * the engine keeps for reuse (its BufferPool, attached as `cache`) count against the limit too,
 * so `used + cache.held <= limit` always holds: a reservation that needs room evicts cached
 * buffers first. `peak` is the highest `used`; `trackPeak()` gives a run its own peak.
 * Nothing can grow past the limit: a consumer either spills (`tryGrow` answered false) or fails
 * with MEMORY_EXHAUSTED (`grow`).
 *
 * Coordinator-only: no locking, no cross-thread sharing. Workers report sizes as data.
 */
import { ExecutionError, PlanError } from '../errors.js';

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  // one letter, binary (as Java's -Xmx1g, Docker's --memory 1g and ulimit)
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
  t: 2 ** 40,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * Bytes from a number or a string such as '512MiB', '1GiB', '2GB', '100KB', '10B', '1.5 GiB',
 * '4096', '1g' (units: B, KB/MB/GB/TB = powers of 1000, KiB/MiB/GiB/TiB and one-letter
 * K/M/G/T = powers of 1024, any case).
 * Fractions are rounded down to whole bytes. Anything else is a PlanError BAD_MEMORY_BUDGET.
 */
export function parseBytes(x: number | string): number {
  const bad = (why: string): PlanError =>
    new PlanError(
      'BAD_MEMORY_BUDGET',
      `Expected a memory size as a number of bytes or a string like '512MiB' or '2GB' (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, or K, M, G, T for KiB … TiB), got ${typeof x === 'string' ? JSON.stringify(x) : String(x)} (${typeof x}): ${why}`,
      { value: typeof x === 'number' || typeof x === 'string' ? x : String(x) },
    );
  if (typeof x === 'number') {
    if (!Number.isFinite(x) || x < 0) throw bad('not a finite non-negative number');
    const n = Math.floor(x);
    if (!Number.isSafeInteger(n)) throw bad('too large');
    return n;
  }
  if (typeof x !== 'string') throw bad('not a number or a string');
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(x);
  if (!m) throw bad('not a number followed by a unit');
  const unit = m[2]!.toLowerCase();
  const mult = unit === '' ? 1 : UNITS[unit];
  if (mult === undefined) throw bad(`unknown unit ${JSON.stringify(m[2])}`);
  const n = Math.floor(Number(m[1]) * mult);
  if (!Number.isSafeInteger(n)) throw bad('too large');
  return n;
}

/** '12.0 MiB' style rendering for messages. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

function checkBytes(bytes: number, what: string, name: string): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new ExecutionError('BAD_RESERVATION', `Reservation ${JSON.stringify(name)}: ${what} expects a non-negative integer byte count, got ${String(bytes)}`, {
      reservation: name,
    });
  }
}

export class Reservation {
  private bytes = 0;
  /** @internal registered in the budget's live set */
  registered = false;

  constructor(
    private readonly budget: MemoryBudget,
    readonly name: string,
  ) {}

  get size(): number {
    return this.bytes;
  }

  /**
   * Grow by `bytes` if they fit in the budget with `leave` bytes still free after them (room a
   * spillable consumer keeps for the tasks that cannot spill); false (and no change) otherwise.
   */
  tryGrow(bytes: number, leave = 0): boolean {
    checkBytes(bytes, 'tryGrow', this.name);
    if (!this.budget.take(this, bytes, leave)) return false;
    this.bytes += bytes;
    return true;
  }

  /** Hand `bytes` of this reservation to `other` (memory that changes owner, not size). */
  moveTo(other: Reservation, bytes: number): void {
    checkBytes(bytes, 'moveTo', this.name);
    if (bytes > this.bytes) {
      throw new ExecutionError('BAD_RESERVATION', `Reservation ${JSON.stringify(this.name)}: cannot move ${bytes} bytes, it holds only ${this.bytes}`, { reservation: this.name });
    }
    this.bytes -= bytes;
    other.adopt(this.budget, bytes);
  }

  /** @internal the receiving side of moveTo */
  adopt(from: MemoryBudget, bytes: number): void {
    if (from !== this.budget) throw new ExecutionError('BAD_RESERVATION', `Reservation ${JSON.stringify(this.name)}: cannot adopt bytes of another budget`, { reservation: this.name });
    this.bytes += bytes;
    this.budget.register(this);
  }

  /** Grow by `bytes`, or throw ExecutionError MEMORY_EXHAUSTED. */
  grow(bytes: number): void {
    if (!this.tryGrow(bytes)) throw this.budget.exhausted(this, bytes);
  }

  /** Give back `bytes` (at most the current size). */
  shrink(bytes: number): void {
    checkBytes(bytes, 'shrink', this.name);
    if (bytes > this.bytes) {
      throw new ExecutionError(
        'BAD_RESERVATION',
        `Reservation ${JSON.stringify(this.name)}: cannot shrink by ${bytes} bytes, it holds only ${this.bytes}`,
        { reservation: this.name },
      );
    }
    this.bytes -= bytes;
    this.budget.give(bytes);
  }

  /** Set the size to exactly `bytes` (growing may throw MEMORY_EXHAUSTED). */
  resize(bytes: number): void {
    checkBytes(bytes, 'resize', this.name);
    if (bytes > this.bytes) this.grow(bytes - this.bytes);
    else if (bytes < this.bytes) this.shrink(this.bytes - bytes);
  }

  /** Like resize, but answers false instead of throwing when growth does not fit. */
  tryResize(bytes: number): boolean {
    checkBytes(bytes, 'tryResize', this.name);
    if (bytes > this.bytes) return this.tryGrow(bytes - this.bytes);
    this.resize(bytes);
    return true;
  }

  /** Release everything; returns the bytes released. Idempotent. */
  free(): number {
    const n = this.bytes;
    this.bytes = 0;
    if (n > 0) this.budget.give(n);
    this.budget.forget(this);
    return n;
  }
}

/** Memory the budget may reclaim: free buffers kept for reuse. */
export interface BudgetCache {
  /** Bytes held (not in use by anyone). */
  readonly held: number;
  /** Drop at least `bytes` of held memory if it can (fewer if it holds less). */
  evict(bytes: number): void;
}

/** A run's view of the peak: the highest `used` since it started. */
export interface PeakTracker {
  readonly peak: number;
  stop(): void;
}

export class MemoryBudget {
  private readonly max: number;
  private usedBytes = 0;
  private peakBytes = 0;
  private readonly live = new Set<Reservation>();
  private readonly trackers = new Set<{ peak: number }>();
  /** Set by the engine's BufferPool. */
  cache: BudgetCache | null = null;

  constructor(limit: number | string) {
    this.max = parseBytes(limit);
  }

  /** Starts a peak measurement (one per run). */
  trackPeak(): PeakTracker {
    const t = { peak: this.usedBytes };
    this.trackers.add(t);
    const trackers = this.trackers;
    return {
      get peak() {
        return t.peak;
      },
      stop() {
        trackers.delete(t);
      },
    };
  }

  get limit(): number {
    return this.max;
  }
  get used(): number {
    return this.usedBytes;
  }
  get peak(): number {
    return this.peakBytes;
  }
  get free(): number {
    return this.max - this.usedBytes;
  }

  /** A new, empty reservation named `name` (names are labels; they need not be unique). */
  reserve(name: string): Reservation {
    return new Reservation(this, name);
  }

  /** Live reservations (created or grown, not freed), largest first. */
  reservations(): Array<{ name: string; bytes: number }> {
    return [...this.live].map((r) => ({ name: r.name, bytes: r.size })).sort((a, b) => b.bytes - a.bytes);
  }

  /** @internal */
  take(r: Reservation, bytes: number, leave = 0): boolean {
    if (this.usedBytes + bytes + leave > this.max) return false;
    const cache = this.cache;
    if (cache && this.usedBytes + bytes + cache.held > this.max) cache.evict(this.usedBytes + bytes + cache.held - this.max);
    this.usedBytes += bytes;
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
    for (const t of this.trackers) if (this.usedBytes > t.peak) t.peak = this.usedBytes;
    this.register(r);
    return true;
  }

  /** @internal */
  register(r: Reservation): void {
    if (!r.registered) {
      r.registered = true;
      this.live.add(r);
    }
  }

  /** @internal */
  give(bytes: number): void {
    this.usedBytes -= bytes;
  }

  /** @internal */
  forget(r: Reservation): void {
    r.registered = false;
    this.live.delete(r);
  }

  /** @internal the MEMORY_EXHAUSTED error for `r` asking for `bytes` more */
  exhausted(r: Reservation, bytes: number): ExecutionError {
    const held = this.reservations().filter((x) => x.bytes > 0);
    const top = held.slice(0, 5);
    const heldText =
      top.length === 0
        ? 'nothing is held'
        : `held: ${top.map((x) => `${JSON.stringify(x.name)} ${formatBytes(x.bytes)}`).join(', ')}${held.length > top.length ? `, and ${held.length - top.length} more` : ''}`;
    return new ExecutionError(
      'MEMORY_EXHAUSTED',
      `Cannot grow reservation ${JSON.stringify(r.name)} by ${formatBytes(bytes)} (it holds ${formatBytes(r.size)}): ` +
        `${formatBytes(this.free)} free of the ${formatBytes(this.max)} memory budget, ${formatBytes(this.usedBytes)} in use; ${heldText}. ` +
        `Raise memoryBudget (--memory-limit) or use fewer threads or partitions.`,
      { reservation: r.name, requested: bytes, free: this.free, limit: this.max, used: this.usedBytes, held: top },
    );
  }
}
