/**
 * The exchange: where partitioned rows wait for their partition's task.
 *
 * Partition tasks (src/worker/partition-task) return, per slab, one region of shared memory per
 * non-empty partition. Each slab's bytes are a named reservation (`<name>.partitions`) against
 * the memory budget; a slab that does not fit goes to disk instead: each of its partition
 * regions is appended to that partition's spill file (Arrow IPC stream, `__row_id` first).
 * A partition's input is then its in-memory chunks plus at most one spill file.
 */
import * as A from 'apache-arrow';
import { schemaToArrow } from '../columns/arrow-types.js';
import { batchFromColumns, chunkDescBytes, rebuildData } from '../columns/shared.js';
import type { MemoryBudget, Reservation } from '../memory/budget.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import { SpillWriter } from '../memory/spill-file.js';
import type { RunDir } from '../memory/temp-dir.js';
import type { SchemaDesc } from '../types/column.js';
import type { ChunkDesc, PartitionInput, PartitionResult } from '../types/tasks.js';

export interface ExchangeEnv {
  budget: MemoryBudget;
  pool: BufferPool;
  runDir(): Promise<RunDir>;
  /** Called after each spill write with the bytes written and whether a new file was made. */
  onSpill(bytes: number, newFile: boolean, ms: number): void;
}

export class Exchange {
  private readonly chunks: ChunkDesc[][];
  private readonly rows: number[];
  private readonly writers: Array<SpillWriter | null>;
  private readonly files: Array<string | null>;
  private readonly reservation: Reservation;
  private readonly spillSchema: A.Schema;

  constructor(
    private readonly env: ExchangeEnv,
    private readonly name: string,
    readonly schema: SchemaDesc,
    readonly partitions: number,
  ) {
    this.chunks = Array.from({ length: partitions }, () => []);
    this.rows = new Array<number>(partitions).fill(0);
    this.writers = new Array<SpillWriter | null>(partitions).fill(null);
    this.files = new Array<string | null>(partitions).fill(null);
    this.reservation = env.budget.reserve(`${name}.partitions`);
    const s = schemaToArrow(schema);
    this.spillSchema = new A.Schema([new A.Field('__row_id', new A.Uint32(), false), ...s.fields]);
  }

  private tail: Promise<void> = Promise.resolve();
  /** Pooled buffers holding in-memory regions, given back to the pool on release(). */
  private readonly pooled: SharedArrayBuffer[] = [];

  /**
   * Takes one slab's partition regions: kept in memory if the budget allows, else spilled.
   * Calls are serialized: slabs finish in any order, and two spilling at once must not both
   * create a partition's spill file.
   */
  add(result: PartitionResult, bytes: number, buffer: SharedArrayBuffer | null = null): Promise<void> {
    const next = this.tail.then(() => this.addNow(result, bytes, buffer));
    this.tail = next.catch(() => {});
    return next;
  }

  private async addNow(result: PartitionResult, bytes: number, buffer: SharedArrayBuffer | null): Promise<void> {
    for (const { partition, chunk } of result.parts) this.rows[partition]! += chunk.length;
    if (this.reservation.tryGrow(bytes)) {
      for (const { partition, chunk } of result.parts) this.chunks[partition]!.push(chunk);
      if (buffer) this.pooled.push(buffer);
      return;
    }
    const t0 = performance.now();
    for (const { partition, chunk } of result.parts) {
      let writer = this.writers[partition];
      const newFile = !writer;
      if (!writer) {
        const path = (await this.env.runDir()).file(`${this.name}-p${partition}`);
        writer = await SpillWriter.create(path, this.spillSchema);
        this.writers[partition] = writer;
        this.files[partition] = path;
      }
      const batch = batchFromColumns(this.spillSchema, [rebuildData(chunk.rowIds), ...chunk.columns.map(rebuildData)], chunk.length);
      await writer.append(batch);
      this.env.onSpill(chunkDescBytes(chunk), newFile, 0);
    }
    this.env.onSpill(0, false, performance.now() - t0);
    // Spilled: nothing refers to the slab's buffer any more.
    if (buffer) this.env.pool.give([buffer]);
  }

  /** Closes the spill files; call once every slab is in. */
  async seal(): Promise<void> {
    await this.tail;
    for (const w of this.writers) if (w) await w.finish();
  }

  rowsOf(p: number): number {
    return this.rows[p]!;
  }

  /** Partitions that received rows, in partition order. */
  nonEmpty(): number[] {
    const out: number[] = [];
    for (let p = 0; p < this.partitions; p++) if (this.rows[p]! > 0) out.push(p);
    return out;
  }

  inputFor(p: number): PartitionInput {
    const file = this.files[p];
    return { chunks: this.chunks[p]!, spillFiles: file ? [file] : [], schema: this.schema };
  }

  /** Drops the in-memory chunks of a partition whose task is done. */
  drop(p: number): void {
    this.chunks[p] = [];
  }

  /** Frees the reservation and gives the buffers back; call when no task can read them. Idempotent. */
  release(): void {
    this.chunks.fill([]);
    this.reservation.free();
    this.env.pool.give(this.pooled.splice(0));
  }
}
