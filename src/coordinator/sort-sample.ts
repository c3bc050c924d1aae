/**
 * Splitters of a global sort's ranges, from a sample of the input taken while it is ingested.
 *
 * Sampling: the rows whose row id is a multiple of `stride`, stride starting at 1 and doubling
 * whenever more than MAX_SAMPLES rows are kept (the kept rows are then thinned to the new
 * stride), so the sample is an evenly spaced subset of the whole input whatever its size, in at
 * most MAX_SAMPLES × 2 rows of key columns. Splitters: the sample sorted by (keys, row id)
 * (src/ops/sort-compare), every (size / ranges)-th row. Row ids make every tuple distinct, so
 * the ranges balance even when one key value holds most rows. Only placement depends on the
 * sample: the sorted output is the same whatever the splitters.
 */
import * as A from 'apache-arrow';
import { localAlloc } from '../columns/arena.js';
import { concatData, gatherData } from '../columns/gather.js';
import { decodeDictionary, describeData, toKeyColumn, toSharedData } from '../columns/shared.js';
import { rowComparer, type SortOrder } from '../ops/sort-compare.js';
import type { KeyColumn } from '../types/keys.js';
import type { ColumnDesc } from '../types/column.js';

const MAX_SAMPLES = 8192;

interface Part {
  ids: Uint32Array;
  keys: A.Data[];
}

export class SortSampler {
  private stride = 1;
  private parts: Part[] = [];
  private count = 0;

  constructor(
    /** Positions of the keys among the routed columns. */
    private readonly keys: number[],
    private readonly orders: SortOrder[],
  ) {}

  /** Sample rows gathered elsewhere (a sort task's sample of one piece): keys in key order. */
  addRows(ids: Uint32Array, keys: A.Data[]): void {
    if (ids.length === 0) return;
    this.parts.push({ ids, keys });
    this.count += ids.length;
    while (this.count > MAX_SAMPLES) this.thin();
  }

  add(batch: A.RecordBatch, rowBase: number): void {
    const n = batch.numRows;
    // The stride is raised before the batch's rows are gathered, not after: the same rows are
    // kept (multiples of the smallest stride that fits), without gathering a whole 1M-row
    // batch and thinning it seven times (0.4 s of the main thread for a 10M-row sort).
    let first: number;
    let m: number;
    for (;;) {
      first = (this.stride - (rowBase % this.stride)) % this.stride;
      m = first >= n ? 0 : Math.ceil((n - first) / this.stride);
      if (this.count + m <= MAX_SAMPLES) break;
      this.thin();
    }
    if (m === 0) return;
    const idx = new Int32Array(m);
    const ids = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      idx[k] = first + k * this.stride;
      ids[k] = rowBase + idx[k]!;
    }
    const keys = this.keys.map((c) => {
      const d = batch.data.children[c]!;
      return gatherData(d.typeId === A.Type.Dictionary ? decodeDictionary(d as A.Data<A.Dictionary>) : d, idx, m, localAlloc);
    });
    this.parts.push({ ids, keys });
    this.count += m;
  }

  private thin(): void {
    this.stride *= 2;
    this.count = 0;
    this.parts = this.parts.map((p) => {
      const keep: number[] = [];
      for (let k = 0; k < p.ids.length; k++) if (p.ids[k]! % this.stride === 0) keep.push(k);
      const idx = Int32Array.from(keep);
      this.count += keep.length;
      return { ids: Uint32Array.from(keep, (k) => p.ids[k]!), keys: p.keys.map((d) => gatherData(d, idx, idx.length, localAlloc)) };
    });
  }

  get size(): number {
    return this.count;
  }

  /** The sampled rows: their ids and key values (keys in key order), in parts. */
  sampled(): Array<{ ids: Uint32Array; keys: A.Data[] }> {
    return [...this.parts];
  }

  /**
   * `ranges - 1` splitter rows in shared memory (one column per key and their row ids), or null
   * when the sample has fewer than two rows.
   */
  splitters(ranges: number): { columns: ColumnDesc[]; ids: ColumnDesc; count: number } | null {
    if (this.count < 2 || ranges < 2) return null;
    const ids = new Uint32Array(this.count);
    let at = 0;
    for (const p of this.parts) {
      ids.set(p.ids, at);
      at += p.ids.length;
    }
    const keyData = this.keys.map((_, k) => (this.parts.length === 1 ? this.parts[0]!.keys[k]! : concatData(this.parts.map((p) => p.keys[k]!), localAlloc)));
    const cols: KeyColumn[] = keyData.map((d) => toKeyColumn(d));
    const cmp = rowComparer(cols, ids, cols, ids, this.orders);
    const order = Array.from({ length: this.count }, (_, i) => i).sort(cmp);
    const count = Math.min(ranges - 1, this.count - 1);
    const picks = new Int32Array(count);
    for (let j = 1; j <= count; j++) picks[j - 1] = order[Math.floor((j * this.count) / (count + 1))]!;
    const splitIds = new Uint32Array(count);
    for (let j = 0; j < count; j++) splitIds[j] = ids[picks[j]!]!;
    return {
      columns: keyData.map((d) => describeData(toSharedData(gatherData(d, picks, count, localAlloc)))),
      ids: describeData(toSharedData(A.makeData({ type: new A.Uint32(), length: count, data: splitIds }))),
      count,
    };
  }
}
