/**
 * Where an exchange's destinations' spilled batches lie in its spill file, in typed arrays.
 *
 * Each spill of an exchange writes a batch or more per destination, so the batches number
 * (spills x destinations), which grows as (input / budget)^2: 747K at 100M rows and a 64 MiB
 * budget. As one object each (path, offsets, rows) they held over 100 MiB of the coordinator's
 * heap; here a batch is 24 bytes in typed arrays (blocks of 1024, chained per destination:
 * 9.4 MiB for the 407K batches of that run's output exchange), and a task's SpillPiece objects
 * are made only when it reads a destination. This is bookkeeping, not data: the budget does
 * not count it (counted, it took the room the exchange spills from, so it spilled smaller
 * batches more often and the index grew faster).
 */
import type { SpillPiece } from '../types/tasks.js';

/** Batches per block: the index grows a block (24 KiB) at a time. */
const BLOCK_SHIFT = 10;
const BLOCK = 1 << BLOCK_SHIFT;
const MASK = BLOCK - 1;
/** Bytes of one block: start and end (float64), rows (uint32), next (int32). */
const BLOCK_BYTES = BLOCK * 24;

interface Block {
  start: Float64Array;
  end: Float64Array;
  rows: Uint32Array;
  /** Next batch of the same destination (-1: none). */
  next: Int32Array;
}

export class SpillIndex {
  private readonly blocks: Block[] = [];
  private count = 0;
  /** Per destination: first and last batch (-1: none), bytes of its batches; made at the first spill. */
  private head: Int32Array | null = null;
  private tail: Int32Array | null = null;
  private bytes: Float64Array | null = null;

  constructor(
    private readonly destinations: number,
    /** The exchange's one spill file, and its schema message's length (each piece's prefix). */
    private readonly file: () => { path: string; schemaBytes: number },
  ) {}

  /** Records a batch of destination `p` at bytes [start, end) of the file. */
  add(p: number, start: number, end: number, rows: number): void {
    if (!this.head) {
      this.head = new Int32Array(this.destinations).fill(-1);
      this.tail = new Int32Array(this.destinations).fill(-1);
      this.bytes = new Float64Array(this.destinations);
    }
    const k = this.count++;
    if ((k & MASK) === 0) this.blocks.push({ start: new Float64Array(BLOCK), end: new Float64Array(BLOCK), rows: new Uint32Array(BLOCK), next: new Int32Array(BLOCK) });
    const b = this.blocks[k >>> BLOCK_SHIFT]!;
    const i = k & MASK;
    b.start[i] = start;
    b.end[i] = end;
    b.rows[i] = rows;
    b.next[i] = -1;
    const t = this.tail![p]!;
    if (t < 0) this.head[p] = k;
    else this.blocks[t >>> BLOCK_SHIFT]!.next[t & MASK] = k;
    this.tail![p] = k;
    this.bytes![p]! += end - start;
  }

  /** Bytes of destination p's spilled batches. */
  bytesOf(p: number): number {
    return this.bytes ? this.bytes[p]! : 0;
  }

  /**
   * Destination p's batches in file order, consecutive ones merged into pieces while the merge
   * `fits` its bytes and rows (a single batch may not).
   */
  piecesOf(p: number, fits: (bytes: number, rows: number) => boolean = () => true): SpillPiece[] {
    const runs: SpillPiece[] = [];
    if (!this.head || this.head[p]! < 0) return runs;
    const { path, schemaBytes } = this.file();
    for (let k = this.head[p]!; k >= 0; ) {
      const b = this.blocks[k >>> BLOCK_SHIFT]!;
      const i = k & MASK;
      const start = b.start[i]!;
      const end = b.end[i]!;
      const rows = b.rows[i]!;
      const last = runs[runs.length - 1];
      if (last && last.end === start && fits(end - last.start, last.rows + rows)) {
        last.end = end;
        last.rows += rows;
      } else runs.push({ path, schemaBytes, start, end, rows });
      k = b.next[i]!;
    }
    return runs;
  }
}
