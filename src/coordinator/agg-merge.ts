/**
 * The final pass of a whole-input aggregate computed piece by piece (src/worker/agg-partial-task):
 * counts added; exact integer sums added limb by limb, then wrapped to 64 bits (sum) or divided
 * by the count (avg); exact decimal sums added word by word, then NULL past 38 digits (sum) or
 * divided (avg) as one task's frame would be (src/ops/window-decimal); float sums rebuilt from the canonical tree nodes of every piece
 * (src/ops/group-agg mergeFloatNodes: bit-identical to one task over all rows); first/last the
 * candidate with the least/greatest row id, min/max the least/greatest candidate value in
 * window's order, first among equals by row id. The result is the one output row.
 */
import { emptyData } from '../io/arrow-input.js';
import * as A from 'apache-arrow';
import { localAlloc } from '../columns/arena.js';
import { typeToArrow } from '../columns/arrow-types.js';
import { build, concatData, gatherData } from '../columns/gather.js';
import { rebuildData, toKeyColumn } from '../columns/shared.js';
import { lessOf, mergeFloatNodes } from '../ops/group-agg.js';
import { decimalMergedSumAvg } from '../ops/window-decimal.js';
import { wideMean } from '../ops/window-sum.js';
import type { TypeDesc } from '../types/column.js';
import type { AggPartialResult, GroupOutputSpec } from '../types/tasks.js';

const TWO32 = 4294967296;

export function mergePartials(outputs: GroupOutputSpec[], pieces: AggPartialResult[]): A.Data[] {
  return outputs.map((o, k) => {
    const parts = pieces.map((p) => p.parts[k]!);
    switch (o.fn) {
      case 'count':
        return int64(parts.reduce((t, p) => t + (p.kind === 'count' ? p.n : 0), 0), o.type);
      case 'sum':
      case 'avg': {
        if (o.column >= 0 && parts.every((p) => p.kind === 'decimalSum')) return decimalMerged(o, parts);
        if (parts.every((p) => p.kind === 'floatSum')) {
          const count = parts.reduce((t, p) => t + (p.kind === 'floatSum' ? p.count : 0), 0);
          const sum = mergeFloatNodes(parts.flatMap((p) => (p.kind === 'floatSum' ? p.nodes : [])));
          if (count === 0 || sum === null) return nullOf(o.type);
          return float64(o.fn === 'avg' ? sum / count : sum);
        }
        let h = 0;
        let m = 0;
        let l = 0;
        let count = 0;
        for (const p of parts) {
          if (p.kind !== 'intSum') continue;
          l += p.l;
          m += p.m;
          h += p.h;
          count += p.count;
          const cl = Math.floor(l / TWO32);
          l -= cl * TWO32;
          m += cl;
          const cm = Math.floor(m / TWO32);
          m -= cm * TWO32;
          h += cm;
        }
        if (count === 0) return nullOf(o.type);
        if (o.fn === 'avg') return float64(wideMean(h, m, l, count));
        const out = new BigInt64Array(1);
        const w = new Uint32Array(out.buffer);
        w[0] = l;
        w[1] = m;
        return build({ type: typeToArrow(o.type), length: 1, nullCount: 0, data: o.type.kind === 'int' && !o.type.signed ? new BigUint64Array(out.buffer) : out });
      }
      case 'first':
      case 'last':
      case 'min':
      case 'max':
        return chooseCandidate(o, parts);
      case 'countDistinct':
        throw new Error('internal: countDistinct has no partial aggregate');
    }
  });
}

/** Decimal sums of the pieces added exactly; sum and avg by window's rules (src/ops/window-decimal). */
function decimalMerged(o: GroupOutputSpec, parts: AggPartialResult['parts']): A.Data {
  const totals = parts.flatMap((p) => (p.kind === 'decimalSum' ? [p] : []));
  const count = totals.reduce((t, p) => t + p.count, 0);
  if (count === 0) return nullOf(o.type);
  const scale = totals[0]!.scale;
  if (o.fn === 'avg') {
    const mean = new Float64Array(1);
    decimalMergedSumAvg(totals, count, scale, null, mean);
    return float64(mean[0]!);
  }
  const words = new Uint32Array(4);
  const valid = decimalMergedSumAvg(totals, count, scale, words, null);
  if (valid !== null && valid[0] === 0) return nullOf(o.type);
  return build({ type: typeToArrow(o.type), length: 1, nullCount: 0, data: words });
}

function chooseCandidate(o: GroupOutputSpec, parts: AggPartialResult['parts']): A.Data {
  const cands = parts.flatMap((p) => (p.kind === 'pick' && p.rowId >= 0 && p.value ? [{ rowId: p.rowId, data: rebuildData(p.value) }] : []));
  if (cands.length === 0) return nullOf(o.type);
  cands.sort((a, b) => a.rowId - b.rowId);
  if (o.fn === 'first') return cands[0]!.data;
  if (o.fn === 'last') return cands[cands.length - 1]!.data;
  const all = concatData(cands.map((c) => c.data), localAlloc);
  const less = lessOf(toKeyColumn(all));
  let best = 0;
  for (let i = 1; i < cands.length; i++) if (o.fn === 'min' ? less(i, best) : less(best, i)) best = i;
  return cands[best]!.data;
}

function int64(v: number, type: TypeDesc): A.Data {
  const out = new BigInt64Array(1);
  const w = new Uint32Array(out.buffer);
  w[0] = v % TWO32;
  w[1] = Math.floor(v / TWO32);
  return build({ type: typeToArrow(type), length: 1, nullCount: 0, data: out });
}

function float64(v: number): A.Data {
  return A.makeData({ type: new A.Float64(), length: 1, nullCount: 0, data: Float64Array.of(v) });
}

function nullOf(type: TypeDesc): A.Data {
  return gatherData(emptyData(typeToArrow(type)), Int32Array.of(-1), 1, localAlloc);
}
