/**
 * Batches a file reader lends: the row slices read straight from an Arrow IPC file
 * (src/io/ipc-slices.ts) are read into memory the reader reuses once the consumer gives the
 * slice back (`giveBack`, called by a consumer that has copied what it needs, such as the
 * partition phase in src/coordinator/ingest.ts). A slice never given back is left to the
 * collector, as any batch.
 *
 * Why: every slice in fresh memory is a page fault per 4 KiB and, until the collector runs,
 * memory nobody uses: a 100M-row window read 6.1 GB of slices into fresh mappings, and the
 * process's RSS swung by ~150 MiB with the main thread's collections.
 */
import type * as A from 'apache-arrow';
import { newLocalBuffer, releaseLocalBuffer } from './mapped-buffers.js';

const leases = new WeakMap<A.RecordBatch, { lender: SliceLender; arena: SliceArena }>();

/** The consumer has copied what it needs of `batch` and will never read it (or a view of it) again. */
export function giveBack(batch: A.RecordBatch): void {
  const lease = leases.get(batch);
  if (!lease) return;
  leases.delete(batch);
  lease.lender.back(lease.arena);
}

/**
 * The memory a lent batch holds (its arena, a little more than its buffers' bytes); 0 for a
 * batch not lent. What the reader's consumer counts while it holds the batch.
 */
export function lentBytes(batch: A.RecordBatch): number {
  return leases.get(batch)?.arena.bytes ?? 0;
}

/**
 * The memory of one lent slice: allocations bumped through its chunks. Reused, it settles on
 * one chunk as big as the biggest slice it held.
 */
export class SliceArena {
  private chunks: ArrayBuffer[] = [];
  private chunk = 0;
  private at = 0;
  private used = 0;
  private wanted = 0;

  /** `len` bytes (8-byte aligned start); their contents are unspecified until written. */
  alloc = (len: number): Uint8Array => {
    const need = (len + 7) & ~7;
    this.used += need;
    for (; this.chunk < this.chunks.length; this.chunk++, this.at = 0) {
      const c = this.chunks[this.chunk]!;
      if (this.at + need <= c.byteLength) {
        const out = new Uint8Array(c, this.at, len);
        this.at += need;
        return out;
      }
    }
    const c = newLocalBuffer(Math.max(need, this.wanted - this.used + need, 4096));
    this.chunks.push(c);
    this.at = need;
    return new Uint8Array(c, 0, len);
  };

  get bytes(): number {
    return this.chunks.reduce((s, c) => s + c.byteLength, 0);
  }

  /** Ready for the next slice (what the last one held is overwritten). */
  reset(): void {
    if (this.chunks.length > 1) {
      // Several chunks: one a little bigger than they held serves next time (slices of
      // strings vary in size).
      this.wanted = Math.max(this.wanted, Math.ceil(this.used * 1.25));
      this.release();
    }
    this.chunk = 0;
    this.at = 0;
    this.used = 0;
  }

  /** Gives the chunks' pages back now. */
  release(): void {
    for (const c of this.chunks) releaseLocalBuffer(c);
    this.chunks = [];
    this.chunk = 0;
    this.at = 0;
  }
}

/** Idle arenas a reader keeps for its next slice (more would crowd a small budget: spills grew 8% at 64 MiB with two). */
const MAX_IDLE = 1;

/**
 * A reader's arenas. `keepIdle(bytes)` asks the budget to hold `bytes` of idle arenas (false:
 * no room, the arena's pages go back instead).
 */
export class SliceLender {
  private readonly idle: SliceArena[] = [];
  private closed = false;

  constructor(private readonly keepIdle: (bytes: number) => boolean) {}

  /** An arena for the next slice. */
  take(): SliceArena {
    const a = this.idle.pop() ?? new SliceArena();
    this.keepIdle(this.idleBytes());
    return a;
  }

  /** Lends `batch`, read into `arena`: its memory comes back here when the batch is given back. */
  lend(batch: A.RecordBatch, arena: SliceArena): void {
    leases.set(batch, { lender: this, arena });
  }

  /** An arena whose slice is not lent after all (e.g. the read failed). */
  back(arena: SliceArena): void {
    arena.reset();
    if (!this.closed && this.idle.length < MAX_IDLE && this.keepIdle(this.idleBytes() + arena.bytes)) this.idle.push(arena);
    else arena.release();
  }

  /** The reader is done: idle arenas go back; lent ones go back when given back, or with their batch. */
  close(): void {
    this.closed = true;
    for (const a of this.idle) a.release();
    this.idle.length = 0;
    this.keepIdle(0);
  }

  private idleBytes(): number {
    return this.idle.reduce((s, a) => s + a.bytes, 0);
  }
}
