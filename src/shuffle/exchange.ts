/**
 * The exchange: where routed rows wait for the task of their destination (a hash partition,
 * a key range, or a row-id range of outputs).
 *
 * Routing tasks (src/worker/routed-chunks) return one region of shared memory per non-empty
 * destination, in a pooled buffer lent for the task. The exchange either keeps the regions (the
 * buffer and any extra shared memory the task made become part of the reservation
 * `<name>.partitions`) or, when keeping them would leave less than the run's headroom free,
 * writes all its regions in one write to the exchange's spill file (an Arrow IPC stream, one
 * batch per region, `__row_id` first) and lets the buffer go back to the pool. A destination's
 * input is its in-memory chunks plus the pieces of the spill file that hold its rows (each
 * readable on its own, so a big destination can be read in parts). A kept buffer returns to the pool as soon as every destination with
 * rows in it has been dropped, so memory falls as tasks finish.
 */
import * as A from 'apache-arrow';
import { TransferArena } from '../columns/arena.js';
import { schemaToArrow } from '../columns/arrow-types.js';
import { concatData } from '../columns/gather.js';
import { batchFromColumns, chunkDescBytes, descSlicer, flatLayoutOf, flatViewOf, rebuildWithType, uint32At, viewOf } from '../columns/shared.js';
import { encodeFlatBatch, type EncodedBatch } from '../io/ipc-encode.js';
import type { MemoryBudget, Reservation } from '../memory/budget.js';
import type { MergeBuffer } from '../memory/merge-buffer.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import { SpillWriter } from '../memory/spill-file.js';
import type { RunDir } from '../memory/temp-dir.js';
import type { ColumnDesc, SchemaDesc } from '../types/column.js';
import type { ChunkDesc, PartitionInput, RoutedChunks } from '../types/tasks.js';
import { routedParts, type RoutedPart } from './routed-parts.js';
import { SpillIndex } from './spill-index.js';
import { mergeable, mergedHead, ReplyColumns, segmentBytes, writeMerged as writeMergedMessage, type Segment } from './spill-merge.js';

/** What an exchange needs from its run. */
export interface ExchangeEnv {
  budget: MemoryBudget;
  pool: BufferPool;
  /** Bytes to leave free for the tasks in flight (beyond the loans they already hold, less `handedOver` loan bytes becoming the exchange's). */
  leave(handedOver: number): number;
  /** The most column bytes a spill merges into one batch (tasks read pieces of about this size). */
  pieceBytes: number;
  runDir(): Promise<RunDir>;
  /** Spill writers are registered with the run, which closes any left open. */
  track(writer: SpillWriter): void;
  untrack(writer: SpillWriter): void;
  /** Called after each spill write with the bytes written and whether a new file was made. */
  spilled(bytes: number, newFile: boolean): void;
  /** The run's spill merge buffer. */
  merge: MergeBuffer;
}

/** The buffer a routing task wrote into, handed over to the exchange or given back. */
export interface RoutedBuffer {
  buffer: SharedArrayBuffer;
  /** Keep: the buffer's bytes move to the exchange's reservation. */
  handOver(owner: Reservation): SharedArrayBuffer;
  /** Spilled: nothing refers to the buffer any more. */
  release(): void;
}

/**
 * One kept routing reply: its regions stay whole (rows destination after destination, `bounds`)
 * and a destination's chunk is cut only when something reads it (a task's input, a spill): a
 * chunk descriptor per destination and reply, kept until the spill, filled the coordinator's
 * old generation (~150 MiB of garbage at 100M rows / 64 MiB).
 */
interface Slab {
  buffer: SharedArrayBuffer | null;
  bytes: number;
  /** Destinations with rows in this slab that are not dropped yet. */
  pending: number;
  reply: RoutedChunks;
  /** The reply's columns' slicers (row ids first), made at the first cut. */
  slicers: Array<(start: number, length: number) => ColumnDesc> | null;
  /** The reply's columns viewed for a spill merge, made at the first spill. */
  flat: ReplyColumns | null;
}

export class Exchange {
  private readonly slabsOf: number[][];
  private readonly slabs: Array<Slab | null> = [];
  private readonly rows: number[];
  /** One spill file for the whole exchange: each routing task's spilled regions in one write. */
  private writer: SpillWriter | null = null;
  private readonly pieces: SpillIndex;
  /** Per destination, the column bytes of its spilled rows (without the IPC framing). */
  private readonly spilledData: number[];
  /**
   * Per destination, its rows' content in bytes (fixed widths, 4-byte offsets and the string
   * bytes, a bit a row per column for validity and bools), counted as the rows arrive: unlike the
   * bytes of its chunks or spilled batches, the same whatever spilled or how rows were cut into
   * chunks, so decisions that order a run's output (cuts of a unit too big for a task) can use it.
   */
  private readonly content: number[];
  /** Per row: fixed bytes (row id and fixed widths, 16 for nested or large columns) and bits. */
  private readonly rowContentBytes: number;
  private readonly rowContentBits: number;
  /** Columns whose string bytes are counted from their 32-bit offsets. */
  private readonly stringColumns: number[];
  /** Per destination, the highest row id added so far, and whether a later chunk began below it. */
  private readonly maxRowId: number[];
  private readonly interleaved: boolean[];
  private readonly reservation: Reservation;
  private readonly spillSchema: A.Schema;
  private readonly spillTypes: A.DataType[];
  /** Every spilled column is flat: merged runs are framed as messages directly (even a run of one chunk). */
  private readonly flat: boolean;
  /** Every spilled column is flat with 32-bit offsets: spills merge straight from the replies (spill-merge.ts). */
  private readonly mergeable: boolean;
  private tail: Promise<void> = Promise.resolve();
  private spilledAny = false;

  constructor(
    private readonly env: ExchangeEnv,
    readonly name: string,
    readonly schema: SchemaDesc,
    readonly partitions: number,
  ) {
    this.slabsOf = Array.from({ length: partitions }, () => []);
    this.rows = new Array<number>(partitions).fill(0);
    this.pieces = new SpillIndex(partitions, () => this.writer!);
    this.spilledData = new Array<number>(partitions).fill(0);
    this.content = new Array<number>(partitions).fill(0);
    const content = rowContent(schema);
    this.rowContentBytes = content.bytes;
    this.rowContentBits = content.bits;
    this.stringColumns = content.strings;
    this.maxRowId = new Array<number>(partitions).fill(-1);
    this.interleaved = new Array<boolean>(partitions).fill(false);
    this.reservation = env.budget.reserve(`${name}.partitions`);
    const s = schemaToArrow(schema);
    this.spillSchema = new A.Schema([new A.Field('__row_id', new A.Uint32(), false), ...s.fields]);
    this.spillTypes = this.spillSchema.fields.map((f) => f.type);
    this.flat = this.spillTypes.every((t) => flatLayoutOf(t) !== null);
    this.mergeable = mergeable(this.spillTypes);
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
    const { rowIds, bounds } = result;
    let destinations = 0;
    const ids = rowIds ? viewOf(Uint32Array, rowIds.values!) : null;
    // The string columns' offsets, viewed once the reply has a row (a reply of none may carry no columns).
    let offsets: Int32Array[] | null = null;
    for (let d = 0; ids && d + 1 < bounds.length; d++) {
      const start = bounds[d]!;
      const end = bounds[d + 1]!;
      if (end === start) continue;
      destinations++;
      this.rows[d]! += end - start;
      offsets ??= this.stringColumns.map((c) => viewOf(Int32Array, result.columns[c]!.offsets!));
      let strings = 0;
      for (const offs of offsets) strings += offs[end]! - offs[start]!;
      this.content[d]! += (end - start) * (this.rowContentBytes + this.rowContentBits / 8) + strings;
      // A destination's rows hold ascending ids: its first and last bound them.
      if (ids[start]! < this.maxRowId[d]!) this.interleaved[d] = true;
      this.maxRowId[d] = Math.max(this.maxRowId[d]!, ids[end - 1]!);
    }
    if (destinations === 0) {
      routed?.release();
      return;
    }
    // Keep when the extra shared memory the task made fits with the headroom left free.
    if (this.reservation.tryGrow(result.extraBytes, this.env.leave(routed?.buffer.byteLength ?? 0))) {
      // Repointed (keepBuffer) before the reply is cut into chunks, which then view the copy.
      const buffer = routed ? this.keepBuffer(result, routed) : null;
      const slab = this.slabs.push({ buffer, bytes: result.extraBytes + (buffer?.byteLength ?? 0), pending: destinations, reply: result, slicers: null, flat: null }) - 1;
      for (let d = 0; d + 1 < bounds.length; d++) if (bounds[d + 1]! > bounds[d]!) this.slabsOf[d]!.push(slab);
      return;
    }
    try {
      // Spill what is kept together with the new regions, one batch per destination: a piece
      // then holds the exchange's memory's worth of a destination, not one routing task's share.
      await this.spillKeptWith(result);
    } finally {
      // Spilled (or failed): nothing refers to the task's buffer any more.
      routed?.release();
    }
  }

  /**
   * The routing buffer's rows, kept: the loan itself, or, when the task filled at most
   * half of it (a group-by's partial pass routes a slab's groups, not its rows), a copy in
   * a buffer of about the bytes used, so the exchange never holds idle loan bytes until the
   * kernel phase; the loan goes back to the pool for the next task.
   */
  private keepBuffer(result: RoutedChunks, routed: RoutedBuffer): SharedArrayBuffer {
    const used = result.bufferBytes;
    const from = result.buffer;
    if (!from || used === 0 || used > routed.buffer.byteLength / 2) return routed.handOver(this.reservation);
    const small = this.env.pool.tryTake(this.reservation, used, 'near');
    if (!small) return routed.handOver(this.reservation);
    new Uint8Array(small).set(new Uint8Array(routed.buffer, 0, used));
    let moved = result.rowIds ? repoint(result.rowIds, from, small) : 0;
    for (const c of result.columns) moved += repoint(c, from, small);
    if (moved === 0) {
      // Nothing referred to the buffer as this reply sees it: keep the loan as it is.
      this.env.pool.give(this.reservation, small);
      return routed.handOver(this.reservation);
    }
    routed.release();
    return small;
  }

  /**
   * Writes every kept chunk to the spill file and lets their buffers go (the run needs the
   * memory); resolves to the bytes freed. Only while rows come in: no task reads them yet.
   */
  spillKept(): Promise<number> {
    const next = this.tail.then(async () => {
      if (this.slabsOf.every((s) => s.length === 0)) return 0;
      const before = this.reservation.size;
      await this.spillKeptWith(null);
      return before - this.reservation.size;
    });
    this.tail = next.then(
      () => {},
      () => {},
    );
    return next;
  }

  /** Writes the kept rows and those of a new reply (`fresh`) to the spill file and drops what was kept. */
  private async spillKeptWith(fresh: RoutedChunks | null): Promise<void> {
    if (this.mergeable) await this.writeSegments(fresh);
    else {
      const lists: ChunkDesc[][] = this.slabsOf.map((_, p) => this.chunksOf(p));
      if (fresh) for (const { partition, chunk } of routedParts(fresh)) lists[partition]!.push(chunk);
      await this.writeMerged(lists);
    }
    for (let p = 0; p < this.partitions; p++) if (this.slabsOf[p]!.length > 0) this.drop(p);
  }

  /**
   * Flat columns (spill-merge.ts): each destination's rows of the kept replies and `fresh`, in
   * row-id order, as merged batches of at most about pieceBytes, written straight from the
   * replies into one output buffer (`<name>.merge`), a few destinations per write.
   */
  private async writeSegments(fresh: RoutedChunks | null): Promise<void> {
    const writer = await this.spillWriter();
    const freshColumns = fresh?.rowIds ? new ReplyColumns(fresh, this.spillTypes) : null;
    // The run's merge buffer (memory/merge-buffer.ts), two pieces' worth, shared by every spill.
    await this.env.merge.use(2 * this.env.pieceBytes + 4096, async (room) => {
      let out: Uint8Array | null = null;
      let used = 0;
      let batches: EncodedBatch[] = [];
      let dests: number[] = [];
      let bytes = 0;
      const flush = async (): Promise<void> => {
        if (batches.length === 0) return;
        const pieces = await writer.appendMany(batches);
        dests.forEach((p, i) => this.pieces.add(p, pieces[i]!.start, pieces[i]!.end, pieces[i]!.rows));
        this.env.spilled(bytes, false);
        batches = [];
        dests = [];
        bytes = 0;
        used = 0;
      };
      for (let p = 0; p < this.partitions; p++) {
        const segments: Segment[] = [];
        for (const s of this.slabsOf[p]!) {
          const slab = this.slabs[s]!;
          slab.flat ??= new ReplyColumns(slab.reply, this.spillTypes);
          segments.push({ from: slab.flat, start: slab.reply.bounds[p]!, rows: slab.reply.bounds[p + 1]! - slab.reply.bounds[p]! });
        }
        if (freshColumns && fresh!.bounds[p + 1]! > fresh!.bounds[p]!) segments.push({ from: freshColumns, start: fresh!.bounds[p]!, rows: fresh!.bounds[p + 1]! - fresh!.bounds[p]! });
        if (segments.length === 0) continue;
        if (segments.length > 1) segments.sort((a, b) => a.from.ids[a.start]! - b.from.ids[b.start]!);
        for (const run of runsUpTo(segments, this.env.pieceBytes, segmentBytes)) {
          const head = mergedHead(run);
          const size = head.headBytes + head.bodyBytes;
          if (out && used + size > out.byteLength) await flush();
          // After a flush (its messages written), so growing the buffer loses nothing.
          if (!out || used + size > out.byteLength) out = room(used + size);
          if (!out) {
            // Not even this run's message can be lent: its segments go out as they lie in the replies.
            const pieces = await writer.appendMany(run.map((seg) => this.batchOf(segmentChunk(seg))));
            pieces.forEach((piece) => this.pieces.add(p, piece.start, piece.end, piece.rows));
            const data = run.reduce((t, seg) => t + segmentBytes(seg), 0);
            this.spilledData[p]! += data;
            this.env.spilled(data, false);
            continue;
          }
          out.fill(0, used, used + size); // bits are or-ed in
          writeMergedMessage(out, used, head, run);
          batches.push({ numRows: head.rows, chunks: [out.subarray(used, used + size)], bytes: size });
          dests.push(p);
          used += size;
          this.spilledData[p]! += head.bodyBytes;
          bytes += head.bodyBytes;
          if (batches.length >= 256) await flush();
        }
      }
      await flush();
    });
  }

  /**
   * Writes each destination's chunks as one batch (concatenated in row-id order, in memory lent
   * by the reservation `<name>.merge`; separately when that cannot be lent), in writes of a few
   * destinations at a time so merged batches never pile up.
   */
  private async writeMerged(lists: ChunkDesc[][]): Promise<void> {
    const writer = await this.spillWriter();
    const merge = this.env.budget.reserve(`${this.name}.merge`);
    // Merged columns are written and dropped within one flush: their pages go back right after.
    // Every array its own buffer (no slabs), so `merge` counts all that is allocated.
    const arena = new TransferArena(true);
    let batches: Array<A.RecordBatch | EncodedBatch> = [];
    let dests: number[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (batches.length === 0) return;
      const pieces = await writer.appendMany(batches);
      dests.forEach((p, i) => this.pieces.add(p, pieces[i]!.start, pieces[i]!.end, pieces[i]!.rows));
      this.env.spilled(bytes, false);
      batches = [];
      dests = [];
      bytes = 0;
      arena.release();
      merge.shrink(merge.size);
    };
    try {
      for (let p = 0; p < lists.length; p++) {
        if (lists[p]!.length === 0) continue;
        for (const run of runsUpTo(inRowIdOrder(lists[p]!), this.env.pieceBytes, chunkDescBytes)) {
          const dataBytes = run.reduce((t, c) => t + chunkDescBytes(c), 0);
          const rows = run.reduce((t, c) => t + c.length, 0);
          // The concatenation: at most the chunks' bytes, plus per column its 8-byte alignments
          // and a validity bitmap for all rows (chunks without NULLs count none).
          const mergeBytes = dataBytes + this.spillTypes.length * (24 + Math.ceil(rows / 8));
          this.spilledData[p]! += dataBytes;
          bytes += dataBytes;
          let merged = false;
          // A flat run of one chunk is copied too: framed directly, it costs less than arrow's writer.
          if (run.length > 1 || this.flat) {
            // At most two runs' worth of merged batches wait for a write: the reader and the
            // tasks in flight need the rest of the budget meanwhile.
            if (merge.size > 0 && merge.size + mergeBytes > 2 * this.env.pieceBytes) await flush();
            merged = merge.tryGrow(mergeBytes, 0);
            if (!merged && merge.size > 0) {
              await flush();
              merged = merge.tryGrow(mergeBytes, 0);
            }
          }
          if (merged) batches.push(this.mergedBatch(run, arena));
          // Not even this run's merge can be lent (or one chunk of nested columns): its chunks go out as they are.
          else for (const c of run) batches.push(this.batchOf(c));
          while (dests.length < batches.length) dests.push(p);
          if (batches.length >= 256) await flush();
        }
      }
      await flush();
    } finally {
      arena.release();
      merge.free();
    }
  }

  private async spillWriter(): Promise<SpillWriter> {
    if (!this.writer) {
      const path = (await this.env.runDir()).file(this.name);
      this.writer = await SpillWriter.create(path, this.spillSchema);
      this.env.track(this.writer);
      this.spilledAny = true;
      this.env.spilled(0, true);
    }
    return this.writer;
  }

  /** Column c of a chunk (0: its row ids) as Arrow Data of the spill schema's type. */
  private dataOf(chunk: ChunkDesc, c: number): A.Data {
    return rebuildWithType(c === 0 ? chunk.rowIds : chunk.columns[c - 1]!, this.spillTypes[c]!);
  }

  private batchOf(chunk: ChunkDesc): A.RecordBatch {
    return batchFromColumns(this.spillSchema, this.spillTypes.map((_, c) => this.dataOf(chunk, c)), chunk.length);
  }

  /**
   * One batch of a destination's chunks, already in row-id order (chunks cover disjoint id
   * runs), concatenated in `arena`; framed as a message directly when every column is flat
   * (ipc-encode.ts: no RecordBatch, no re-packing of bitmaps at a bit offset).
   */
  private mergedBatch(sorted: ChunkDesc[], arena: TransferArena): A.RecordBatch | EncodedBatch {
    const length = sorted.reduce((t, c) => t + c.length, 0);
    const columns = this.spillTypes.map((type, c) => {
      const views = sorted.map((chunk) => flatViewOf(c === 0 ? chunk.rowIds : chunk.columns[c - 1]!, type) ?? this.dataOf(chunk, c));
      return concatData(views, arena.alloc);
    });
    return (this.flat && encodeFlatBatch(columns, length)) || batchFromColumns(this.spillSchema, columns, length);
  }

  /** Closes the spill files; call once every routing task is in. */
  async seal(): Promise<void> {
    await this.tail;
    if (!this.writer) return;
    await this.writer.finish();
    this.env.untrack(this.writer);
  }

  rowsOf(p: number): number {
    return this.rows[p]!;
  }

  get totalRows(): number {
    return this.rows.reduce((s, r) => s + r, 0);
  }

  /** Bytes of destination p's spilled batches. */
  spillBytesOf(p: number): number {
    return this.pieces.bytesOf(p);
  }

  /** Destination p's rows' content bytes (see `content`): the same on every run with the same rows. */
  contentBytesOf(p: number): number {
    return Math.ceil(this.content[p]!);
  }

  /** Column bytes of destination p's spilled rows, decoded (without the IPC framing). */
  spilledDataBytesOf(p: number): number {
    return this.spilledData[p]!;
  }

  /**
   * Whether destination p's pieces may overlap in row ids (tasks finished out of order around a
   * spill): its reader then sorts the rows by id, one more copy of them.
   */
  mayInterleave(p: number): boolean {
    return this.interleaved[p]!;
  }

  /** Bytes of destination p's in-memory chunks. */
  memoryBytesOf(p: number): number {
    return this.chunksOf(p).reduce((s, c) => s + chunkDescBytes(c), 0);
  }

  /** Destinations that received rows, in order. */
  nonEmpty(): number[] {
    const out: number[] = [];
    for (let p = 0; p < this.partitions; p++) if (this.rows[p]! > 0) out.push(p);
    return out;
  }

  /** Destination p's rows: its chunks, and its spilled batches as few pieces as they are contiguous. */
  inputFor(p: number): PartitionInput {
    return { chunks: this.chunksOf(p), spills: this.pieces.piecesOf(p), schema: this.schema };
  }

  /**
   * Destination p's rows in inputs for separate tasks: its spilled batches and in-memory
   * chunks, in that order, as many to an input as `fits` its bytes and rows (the caller's task
   * loans; one that does not fit alone is an input on its own). One input per spilled batch made a 10M-row window
   * at 64 MiB run 5,760 route tasks of ~1,700 rows to split its partitions: each spill of the
   * exchange writes a small batch per destination, and a destination's batches are never
   * adjacent in the file.
   */
  piecesOf(p: number, fits: (bytes: number, rows: number) => boolean): Array<{ input: PartitionInput; bytes: number; rows: number }> {
    // Spilled runs first: they hold the earlier rows (what is kept came in after the last spill),
    // so inputs routed in turn stay in row-id order and their readers need not sort them.
    const out: Array<{ input: PartitionInput; bytes: number; rows: number }> = [];
    const add = (bytes: number, rows: number, put: (input: PartitionInput) => void): void => {
      let into = out[out.length - 1];
      if (!into || !fits(into.bytes + bytes, into.rows + rows)) out.push((into = { input: { chunks: [], spills: [], schema: this.schema }, bytes: 0, rows: 0 }));
      put(into.input);
      into.bytes += bytes;
      into.rows += rows;
    };
    for (const run of this.pieces.piecesOf(p, fits)) add(run.end - run.start, run.rows, (input) => input.spills.push(run));
    for (const c of this.chunksOf(p)) add(chunkDescBytes(c), c.length, (input) => input.chunks.push(c));
    return out;
  }

  /** Destination p's rows kept in memory: one chunk per kept reply with rows for it, cut now. */
  private chunksOf(p: number): ChunkDesc[] {
    return this.slabsOf[p]!.map((s) => {
      const slab = this.slabs[s]!;
      const r = slab.reply;
      slab.slicers ??= [descSlicer(r.rowIds!), ...r.columns.map(descSlicer)];
      const start = r.bounds[p]!;
      const length = r.bounds[p + 1]! - start;
      const [ids, ...columns] = slab.slicers.map((cut) => cut(start, length));
      return { length, rowIds: ids!, columns };
    });
  }

  /** Drops the in-memory chunks of a destination whose task is done; slabs nobody needs go back. */
  drop(p: number): void {
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
    for (let p = 0; p < this.partitions; p++) this.slabsOf[p] = [];
    this.reservation.free();
  }
}

/** Chunks sorted by their first row id (each read once, not per comparison). */
function inRowIdOrder(chunks: ChunkDesc[]): ChunkDesc[] {
  return chunks
    .map((chunk) => ({ chunk, first: uint32At(chunk.rowIds, 0) }))
    .sort((a, b) => a.first - b.first)
    .map((x) => x.chunk);
}

/** A segment's rows as a chunk (views of its reply's regions). */
function segmentChunk(seg: Segment): ChunkDesc {
  const r = seg.from.reply;
  const [ids, ...columns] = [r.rowIds!, ...r.columns].map((d) => descSlicer(d)(seg.start, seg.rows));
  return { length: seg.rows, rowIds: ids!, columns };
}

/** Consecutive items (chunks, segments) grouped into runs of at most `maxBytes` (a bigger item alone). */
function runsUpTo<T>(items: T[], maxBytes: number, bytesOf: (item: T) => number): T[][] {
  const runs: T[][] = [];
  let bytes = Infinity;
  for (const item of items) {
    const b = bytesOf(item);
    if (bytes + b > maxBytes) {
      runs.push([]);
      bytes = 0;
    }
    runs[runs.length - 1]!.push(item);
    bytes += b;
  }
  return runs;
}

/** Points a column's buffers in `from` at the same offsets in `to` (a copy of its prefix); how many. */
function repoint(c: ColumnDesc, from: SharedArrayBuffer, to: SharedArrayBuffer): number {
  let moved = 0;
  for (const ref of [c.validity, c.offsets, c.values]) {
    if (ref && ref.sab === from) {
      ref.sab = to;
      moved++;
    }
  }
  for (const child of c.children) moved += repoint(child, from, to);
  return moved;
}

/** The per-row content of a schema's columns (Exchange.content): fixed bytes, bits, and the string columns. */
function rowContent(schema: SchemaDesc): { bytes: number; bits: number; strings: number[] } {
  let bytes = 4; // the row id
  let bits = 0;
  const strings: number[] = [];
  schema.forEach((f, c) => {
    const t = f.type;
    bits++; // validity
    switch (t.kind) {
      case 'null':
        break;
      case 'bool':
        bits++;
        break;
      case 'int':
      case 'float':
        bytes += t.bits / 8;
        break;
      case 'date':
        bytes += t.unit === 'day' ? 4 : 8;
        break;
      case 'timestamp':
      case 'duration':
        bytes += 8;
        break;
      case 'decimal':
        bytes += 16;
        break;
      case 'utf8':
      case 'binary':
        bytes += 4;
        strings.push(c);
        break;
      default:
        bytes += 16; // large strings, lists, structs, maps: a fixed guess, the same every run
    }
  });
  return { bytes, bits, strings };
}
