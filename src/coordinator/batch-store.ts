/**
 * Keeps a blocking operator's input batches until its output phase replays them in order.
 * Batches Sluice allocated itself (file reads, earlier stages) count against the memory budget
 * as the reservation `<name>.retained`; when keeping one would leave less than the run's
 * headroom free it goes to one spill file instead, in pieces small enough to read back within
 * a task's share of the budget, and is read back in order. Batches in the
 * caller's memory (fromArrow) are only referenced, never counted.
 */
import type * as A from 'apache-arrow';
import { batchBytes, batchCopyBytes } from '../columns/shared.js';
import { ExecutionError, InputError } from '../errors.js';
import type { Reservation } from '../memory/budget.js';
import { readSpill, SpillWriter } from '../memory/spill-file.js';
import type { RunContext } from './run-context.js';

/**
 * The most of the budget kept batches may hold: half of what spillable consumers share. The
 * exchanges routing the same rows need the rest to gather a spill's worth per destination;
 * without a cap the store took nearly all of it and most routed replies spilled alone. Window,
 * 10M rows from Parquet at 64 MiB, two runs each: 454-509 spills / 49-57K messages / VmHWM
 * 418-458 MiB uncapped, 307-321 / 29K / 385-399 MiB capped, time within noise (12.7-15.3 s
 * against 12.9-13.3 s); at 256 MiB 95 spills -> 12, time the same.
 */
const RETAINED_SHARE = 0.25;

/** `reread`: the batch comes from the second read of the input (only a prefix of the items). */
type Item = { batch: A.RecordBatch | null; rows: number; rowBase: number; bytes: number; reread: boolean };

export class BatchStore {
  private readonly items: Item[] = [];
  private readonly reservation: Reservation;
  private spill: SpillWriter | null = null;
  private spillPath: string | null = null;
  private rows = 0;

  constructor(
    private readonly ctx: RunContext,
    private readonly name: string,
    private readonly owned: boolean,
    /** The same batches again at replay (e.g. an Arrow IPC file read twice): nothing is kept. */
    private readonly reread: (() => AsyncIterable<A.RecordBatch>) | null = null,
  ) {
    this.reservation = ctx.budget.reserve(`${name}.retained`);
    this.rereading = reread !== null;
  }

  /**
   * Whether batches are still left to the second read. A batch bigger than a spilled piece
   * would be, read again whole next to the output phase's loans, might not fit: from the first
   * one on, batches are kept (or spilled in pieces) instead.
   */
  private rereading: boolean;

  get totalRows(): number {
    return this.rows;
  }

  /** Adds a batch; returns its first row id. */
  async push(batch: A.RecordBatch): Promise<number> {
    const rowBase = this.rows;
    this.rows += batch.numRows;
    const bytes = this.owned ? batchBytes(batch) : 0;
    if (this.rereading && bytes <= this.pieceBytes) {
      if (batch.numRows > 0) this.items.push({ batch: null, rows: batch.numRows, rowBase, bytes: 0, reread: true });
      return rowBase;
    }
    this.rereading = false;
    if (!this.owned || (this.reservation.size + bytes <= RETAINED_SHARE * this.ctx.budget.limit && this.reservation.tryGrow(bytes, this.ctx.spillableLeave()))) {
      this.items.push({ batch, rows: batch.numRows, rowBase, bytes, reread: false });
      return rowBase;
    }
    // Spilled in pieces small enough that reading one back fits a task's share of the budget.
    const pieceRows = Math.max(1, Math.floor(this.pieceBytes / Math.max(1, bytes / Math.max(1, batch.numRows))));
    for (let start = 0; start < batch.numRows || start === 0; start += pieceRows) {
      const len = Math.min(pieceRows, batch.numRows - start);
      const piece = start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
      await this.ctx.clock.during('spill', this.write(piece));
      this.items.push({ batch: null, rows: len, rowBase: rowBase + start, bytes: 0, reread: false });
      if (len === 0) break;
    }
    return rowBase;
  }

  /** The most bytes of input one replayed batch read back (or read again) may hold. */
  private get pieceBytes(): number {
    return this.ctx.limits.readBytes;
  }

  private async write(batch: A.RecordBatch): Promise<void> {
    const newFile = !this.spill;
    if (!this.spill) {
      const dir = await this.ctx.runDir();
      this.spillPath = dir.file(`${this.name}-retained`);
      this.spill = await SpillWriter.create(this.spillPath, batch.schema);
      this.ctx.track(this.spill);
    }
    await this.spill.append(batch);
    this.ctx.spilled(batchCopyBytes(batch), newFile);
  }

  /** Ends the writing side (call once all batches are in). */
  async seal(): Promise<void> {
    if (!this.spill) return;
    await this.spill.finish();
    this.ctx.untrack(this.spill);
  }

  /**
   * The batches in order, with their first row ids: the first ones read again (the same row
   * counts in the same order, or the input changed), the rest kept or read back from the spill
   * file; each in-memory batch is let go once replayed.
   */
  async *replay(): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    const again = this.reread && this.items[0]?.reread ? this.reread()[Symbol.asyncIterator]() : null;
    const reader = this.spillPath ? readSpill(this.spillPath)[Symbol.asyncIterator]() : null;
    // A batch read back from disk is held (counted here) until the consumer asks for the next.
    const readBack = this.ctx.budget.reserve(`${this.name}.read-back`);
    try {
      for (let k = 0; k < this.items.length; k++) {
        const item = this.items[k]!;
        let batch = item.batch;
        if (item.reread) batch = await this.readAgain(again!, item, k);
        else if (!batch) {
          const r = await this.ctx.clock.during('spill', reader!.next());
          // fewer batches than were written: the file was cut (a full disk, someone else's hand)
          if (r.done) throw new ExecutionError('SPILL_UNREADABLE', `Spill file ${this.spillPath} cannot be read back: it ends after ${k} of the batches written to it`, { path: this.spillPath ?? undefined });
          batch = r.value;
          readBack.grow(batchBytes(batch));
        }
        item.batch = null;
        yield { batch, rowBase: item.rowBase };
        readBack.free();
        if (item.bytes > 0) this.reservation.shrink(item.bytes);
        item.bytes = 0;
      }
      if (again && this.items.every((item) => item.reread)) {
        const r = await again.next();
        if (!r.done && r.value.numRows > 0) {
          throw new InputError('INPUT_CHANGED', `${this.name}: the input read a second time has more than the ${this.rows} rows of the first read`);
        }
      }
    } finally {
      readBack.free();
      await again?.return?.(undefined);
      await reader?.return?.(undefined);
    }
  }

  /** Item k's batch from the second read, which must have the first read's rows. */
  private async readAgain(again: AsyncIterator<A.RecordBatch>, item: Item, k: number): Promise<A.RecordBatch> {
    for (;;) {
      const r = await again.next();
      if (r.done) {
        throw new InputError('INPUT_CHANGED', `${this.name}: the input read a second time ended after ${item.rowBase} of the ${this.rows} rows of the first read`);
      }
      if (r.value.numRows === 0) continue;
      if (r.value.numRows !== item.rows) {
        throw new InputError(
          'INPUT_CHANGED',
          `${this.name}: the input read a second time differs from the first read (batch ${k + 1} has ${r.value.numRows} rows, the first read had ${item.rows})`,
        );
      }
      return r.value;
    }
  }

  release(): void {
    this.items.length = 0;
    this.reservation.free();
  }
}
