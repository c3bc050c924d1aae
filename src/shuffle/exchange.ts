/**
 * The exchange: where routed rows wait for the task of their destination (a hash partition,
 * a key range, or a row-id range of outputs).
 *
 * Routing tasks (src/worker/routed-chunks) return one region of shared memory per non-empty
 * destination, in a pooled buffer lent for the task. The exchange either keeps the regions (the
 * buffer and any extra shared memory the task made become part of the reservation
 * `<name>.partitions`) or, when keeping them would leave less than the run's headroom free,
 * appends each region to its destination's spill file (Arrow IPC stream, `__row_id` first) and
 * lets the buffer go back to the pool. A destination's input is its in-memory chunks plus the
 * pieces of its spill file (readable apart, so a big destination can be read in parts). A kept buffer returns to the pool as soon as every destination with
 * rows in it has been dropped, so memory falls as tasks finish.
 */
import * as A from 'apache-arrow';
import { schemaToArrow } from '../columns/arrow-types.js';
import { batchFromColumns, chunkDescBytes, rebuildData } from '../columns/shared.js';
import type { MemoryBudget, Reservation } from '../memory/budget.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import { SpillWriter } from '../memory/spill-file.js';
import type { RunDir } from '../memory/temp-dir.js';
import type { SchemaDesc } from '../types/column.js';
import type { ChunkDesc, PartitionInput, RoutedChunks, SpillPiece } from '../types/tasks.js';

/** What an exchange needs from its run. */
export interface ExchangeEnv {
  budget: MemoryBudget;
  pool: BufferPool;
  /** Bytes to leave free for the tasks in flight. */
  headroom: number;
  runDir(): Promise<RunDir>;
  /** Spill writers are registered with the run, which closes any left open. */
  track(writer: SpillWriter): void;
  untrack(writer: SpillWriter): void;
  /** Called after each spill write with the bytes written and whether a new file was made. */
  spilled(bytes: number, newFile: boolean): void;
}

/** The buffer a routing task wrote into, handed over to the exchange or given back. */
export interface RoutedBuffer {
  buffer: SharedArrayBuffer;
  /** Keep: the buffer's bytes move to the exchange's reservation. */
  handOver(owner: Reservation): SharedArrayBuffer;
  /** Spilled: nothing refers to the buffer any more. */
  release(): void;
}

interface Slab {
  buffer: SharedArrayBuffer | null;
  bytes: number;
  /** Destinations with rows in this slab that are not dropped yet. */
  pending: number;
}

export class Exchange {
  private readonly chunks: ChunkDesc[][];
  private readonly slabsOf: number[][];
  private readonly slabs: Array<Slab | null> = [];
  private readonly rows: number[];
  private readonly writers: Array<SpillWriter | null>;
  private readonly pieces: SpillPiece[][];
  /** Per destination, the column bytes of its spilled rows (without the IPC framing). */
  private readonly spilledData: number[];
  private readonly reservation: Reservation;
  private readonly spillSchema: A.Schema;
  private tail: Promise<void> = Promise.resolve();
  private spilledAny = false;

  constructor(
    private readonly env: ExchangeEnv,
    private readonly name: string,
    readonly schema: SchemaDesc,
    readonly partitions: number,
  ) {
    this.chunks = Array.from({ length: partitions }, () => []);
    this.slabsOf = Array.from({ length: partitions }, () => []);
    this.rows = new Array<number>(partitions).fill(0);
    this.writers = new Array<SpillWriter | null>(partitions).fill(null);
    this.pieces = Array.from({ length: partitions }, () => []);
    this.spilledData = new Array<number>(partitions).fill(0);
    this.reservation = env.budget.reserve(`${name}.partitions`);
    const s = schemaToArrow(schema);
    this.spillSchema = new A.Schema([new A.Field('__row_id', new A.Uint32(), false), ...s.fields]);
  }

  /** Bytes held in memory now. */
  get bytes(): number {
    return this.reservation.size;
  }

  /** Whether any rows went to disk. */
  get spilled(): boolean {
    return this.spilledAny;
  }

  /**
   * Takes one routing task's regions: kept in memory if the budget allows, else spilled.
   * Calls are serialized: tasks finish in any order, and two spilling at once must not both
   * create a destination's spill file.
   */
  add(result: RoutedChunks, routed: RoutedBuffer | null): Promise<void> {
    const next = this.tail.then(() => this.addNow(result, routed));
    this.tail = next.catch(() => {});
    return next;
  }

  private async addNow(result: RoutedChunks, routed: RoutedBuffer | null): Promise<void> {
    for (const { partition, chunk } of result.parts) this.rows[partition]! += chunk.length;
    if (result.parts.length === 0) {
      routed?.release();
      return;
    }
    // Keep when the extra shared memory the task made fits with the headroom left free.
    if (this.reservation.tryGrow(result.extraBytes, this.env.headroom)) {
      const buffer = routed ? routed.handOver(this.reservation) : null;
      const slab = this.slabs.push({ buffer, bytes: result.extraBytes + (buffer?.byteLength ?? 0), pending: result.parts.length }) - 1;
      for (const { partition, chunk } of result.parts) {
        this.chunks[partition]!.push(chunk);
        this.slabsOf[partition]!.push(slab);
      }
      return;
    }
    try {
      for (const { partition, chunk } of result.parts) {
        let writer = this.writers[partition];
        const newFile = !writer;
        if (!writer) {
          const path = (await this.env.runDir()).file(`${this.name}-p${partition}`);
          writer = await SpillWriter.create(path, this.spillSchema);
          this.env.track(writer);
          this.writers[partition] = writer;
        }
        const batch = batchFromColumns(this.spillSchema, [rebuildData(chunk.rowIds), ...chunk.columns.map(rebuildData)], chunk.length);
        this.pieces[partition]!.push(await writer.append(batch));
        this.spilledAny = true;
        const data = chunkDescBytes(chunk);
        this.spilledData[partition]! += data;
        this.env.spilled(data, newFile);
      }
    } finally {
      // Spilled (or failed): nothing refers to the task's buffer any more.
      routed?.release();
    }
  }

  /** Closes the spill files; call once every routing task is in. */
  async seal(): Promise<void> {
    await this.tail;
    for (const w of this.writers) {
      if (!w) continue;
      await w.finish();
      this.env.untrack(w);
    }
  }

  rowsOf(p: number): number {
    return this.rows[p]!;
  }

  get totalRows(): number {
    return this.rows.reduce((s, r) => s + r, 0);
  }

  /** Bytes of destination p's spilled batches. */
  spillBytesOf(p: number): number {
    return this.pieces[p]!.reduce((s, x) => s + x.end - x.start, 0);
  }

  /** Column bytes of destination p's spilled rows, decoded (without the IPC framing). */
  spilledDataBytesOf(p: number): number {
    return this.spilledData[p]!;
  }

  /** Bytes of destination p's in-memory chunks. */
  memoryBytesOf(p: number): number {
    return this.chunks[p]!.reduce((s, c) => s + chunkDescBytes(c), 0);
  }

  /** Destinations that received rows, in order. */
  nonEmpty(): number[] {
    const out: number[] = [];
    for (let p = 0; p < this.partitions; p++) if (this.rows[p]! > 0) out.push(p);
    return out;
  }

  inputFor(p: number): PartitionInput {
    return { chunks: this.chunks[p]!, spills: this.pieces[p]!, schema: this.schema };
  }

  /**
   * Destination p's rows in pieces of about `maxBytes` or fewer (each in-memory chunk on its
   * own, consecutive spilled batches merged up to the size), to be read by separate tasks.
   */
  piecesOf(p: number, maxBytes: number): Array<{ input: PartitionInput; bytes: number; rows: number }> {
    const out: Array<{ input: PartitionInput; bytes: number; rows: number }> = this.chunks[p]!.map((c) => ({
      input: { chunks: [c], spills: [], schema: this.schema },
      bytes: chunkDescBytes(c),
      rows: c.length,
    }));
    const runs: SpillPiece[] = [];
    for (const piece of this.pieces[p]!) {
      const last = runs[runs.length - 1];
      if (last && last.end === piece.start && last.end - last.start + piece.end - piece.start <= maxBytes) {
        runs[runs.length - 1] = { ...last, end: piece.end, rows: last.rows + piece.rows };
      } else runs.push(piece);
    }
    for (const run of runs) out.push({ input: { chunks: [], spills: [run], schema: this.schema }, bytes: run.end - run.start, rows: run.rows });
    return out;
  }

  /** Drops the in-memory chunks of a destination whose task is done; slabs nobody needs go back. */
  drop(p: number): void {
    this.chunks[p] = [];
    for (const s of this.slabsOf[p]!) {
      const slab = this.slabs[s];
      if (!slab) continue;
      if (--slab.pending === 0) this.freeSlab(s);
    }
    this.slabsOf[p] = [];
  }

  private freeSlab(s: number): void {
    const slab = this.slabs[s]!;
    this.slabs[s] = null;
    if (slab.buffer) this.env.pool.give(this.reservation, slab.buffer);
    this.reservation.shrink(slab.bytes - (slab.buffer?.byteLength ?? 0));
  }

  /** Frees everything in memory; call when no task can read it. Idempotent. */
  release(): void {
    for (let s = 0; s < this.slabs.length; s++) if (this.slabs[s]) this.freeSlab(s);
    for (let p = 0; p < this.partitions; p++) {
      this.chunks[p] = [];
      this.slabsOf[p] = [];
    }
    this.reservation.free();
  }
}
