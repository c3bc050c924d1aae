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

type Item = { batch: A.RecordBatch | null; rows: number; rowBase: number; bytes: number };

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
  }

  get totalRows(): number {
    return this.rows;
  }

  /** Adds a batch; returns its first row id. */
  async push(batch: A.RecordBatch): Promise<number> {
    const rowBase = this.rows;
    this.rows += batch.numRows;
    if (this.reread) {
      if (batch.numRows > 0) this.items.push({ batch: null, rows: batch.numRows, rowBase, bytes: 0 });
      return rowBase;
    }
    const bytes = this.owned ? batchBytes(batch) : 0;
    if (!this.owned || this.reservation.tryGrow(bytes, this.ctx.limits.headroom)) {
      this.items.push({ batch, rows: batch.numRows, rowBase, bytes });
      return rowBase;
    }
    // Spilled in pieces small enough that reading one back fits a task's share of the budget.
    const pieceRows = Math.max(1, Math.floor(this.ctx.limits.taskBytes / 4 / Math.max(1, bytes / Math.max(1, batch.numRows))));
    for (let start = 0; start < batch.numRows || start === 0; start += pieceRows) {
      const len = Math.min(pieceRows, batch.numRows - start);
      const piece = start === 0 && len === batch.numRows ? batch : batch.slice(start, start + len);
      await this.ctx.clock.during('spill', this.write(piece));
      this.items.push({ batch: null, rows: len, rowBase: rowBase + start, bytes: 0 });
      if (len === 0) break;
    }
    return rowBase;
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

  /** The batches in order, with their first row ids; each in-memory batch is let go once replayed. */
  replay(): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    return this.reread ? this.replayRead(this.reread) : this.replayKept();
  }

  /** The batches read again: the same row counts in the same order, or the input changed. */
  private async *replayRead(reread: () => AsyncIterable<A.RecordBatch>): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    let k = 0;
    let rowBase = 0;
    for await (const batch of reread()) {
      if (batch.numRows === 0) continue;
      const item = this.items[k++];
      if (!item || item.rows !== batch.numRows) {
        throw new InputError('INPUT_CHANGED', `${this.name}: the input read a second time differs from the first read (batch ${k} has ${batch.numRows} rows, the first read had ${item ? item.rows : 'none'})`);
      }
      yield { batch, rowBase };
      rowBase += batch.numRows;
    }
    if (rowBase !== this.rows) {
      throw new InputError('INPUT_CHANGED', `${this.name}: the input read a second time ended after ${rowBase} of the ${this.rows} rows of the first read`);
    }
  }

  private async *replayKept(): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    const reader = this.spillPath ? readSpill(this.spillPath)[Symbol.asyncIterator]() : null;
    // A batch read back from disk is held (counted here) until the consumer asks for the next.
    const readBack = this.ctx.budget.reserve(`${this.name}.read-back`);
    try {
      for (const item of this.items) {
        let batch = item.batch;
        if (!batch) {
          const r = await this.ctx.clock.during('spill', reader!.next());
          if (r.done) throw new ExecutionError('INTERNAL', `internal: spill file ${this.spillPath} ended early`);
          batch = r.value;
          readBack.grow(batchBytes(batch));
        }
        item.batch = null;
        yield { batch, rowBase: item.rowBase };
        readBack.free();
        if (item.bytes > 0) this.reservation.shrink(item.bytes);
        item.bytes = 0;
      }
    } finally {
      readBack.free();
      await reader?.return?.(undefined);
    }
  }

  release(): void {
    this.items.length = 0;
    this.reservation.free();
  }
}
