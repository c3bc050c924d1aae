/**
 * Keeps a blocking operator's input batches until its output phase replays them in order.
 * Batches Sluice allocated itself (file reads, earlier stages) count against the memory budget
 * as the reservation `<name>.retained`; over budget they go to one spill file and are read back
 * in order. Batches in the caller's memory (fromArrow) are only referenced, never counted.
 */
import type * as A from 'apache-arrow';
import { batchBytes } from '../columns/shared.js';
import type { Reservation } from '../memory/budget.js';
import { readSpill, SpillWriter } from '../memory/spill-file.js';
import type { RunContext } from './run-context.js';

type Item = { batch: A.RecordBatch | null; rows: number; rowBase: number };

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
    if (!this.owned || this.reservation.tryGrow(batchBytes(batch))) {
      this.items.push({ batch, rows: batch.numRows, rowBase });
      return rowBase;
    }
    const t0 = performance.now();
    if (!this.spill) {
      const dir = await this.ctx.runDir();
      this.spillPath = dir.file(`${this.name}-retained`);
      this.spill = await SpillWriter.create(this.spillPath, batch.schema);
      this.ctx.stats.spillFiles++;
    }
    await this.spill.append(batch);
    this.ctx.stats.spilledBytes += batchBytes(batch);
    this.ctx.addPhase('spill', performance.now() - t0);
    this.items.push({ batch: null, rows: batch.numRows, rowBase });
    return rowBase;
  }

  /** Ends the writing side (call once all batches are in). */
  async seal(): Promise<void> {
    if (this.spill) await this.spill.finish();
  }

  /** The batches in order, with their first row ids. */
  async *replay(): AsyncGenerator<{ batch: A.RecordBatch; rowBase: number }> {
    const reader = this.spillPath ? readSpill(this.spillPath)[Symbol.asyncIterator]() : null;
    try {
      for (const item of this.items) {
        let batch = item.batch;
        if (!batch) {
          const r = await reader!.next();
          if (r.done) throw new Error(`internal: spill file ${this.spillPath} ended early`);
          batch = r.value;
        }
        yield { batch, rowBase: item.rowBase };
      }
    } finally {
      await reader?.return?.(undefined);
    }
  }

  /** All retained batches in memory at once (the right side of a join). */
  async all(): Promise<A.RecordBatch[]> {
    const out: A.RecordBatch[] = [];
    for await (const { batch } of this.replay()) out.push(batch);
    return out;
  }

  release(): void {
    this.reservation.free();
  }
}
