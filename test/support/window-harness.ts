/**
 * Kernel harness for window tests: plain JS rows → the kernel's input, prepared as the worker
 * prepares it (dense partition-group ids, one radix argsort by (group, order keys, row id),
 * permuted key and measure columns, countDistinct value ids), and kernel outputs (sorted order,
 * values or takes) → JS values in input order, like an Arrow column read back.
 * This is engine plumbing under test, not an oracle: the expected values come from
 * window-reference.ts.
 */
import { dirtyWhenOverwritten } from './dirty-allocator.js';
import { computeWindow, computeWindowNaive, TAKE_DEFAULT, type WindowColumnOut, type WindowKernelInput } from '../../src/ops/window.js';
import type { ResolvedLiteral } from '../../src/ops/window-literal.js';
import { resolveWindow, type WindowOptions } from '../../src/ops/window-spec.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import type { KeyColumn, TypedArray } from '../../src/types/keys.js';
import { groupIds, groupStartsOf } from '../../src/worker/group-ids.js';
import { permuteKey } from '../../src/worker/permute.js';
import { argsortKeys } from '../../src/worker/sort.js';
import { distinctIdsOf } from '../../src/worker/window-task.js';
import type { RefOut, RefRow, RefValue } from './window-reference.js';

const fresh = <T extends TypedArray>(ctor: { new (n: number): T }, n: number): T => new ctor(n);

/** A KeyColumn of the given type from JS values (in the given row order). */
export function keyColumnFromValues(type: TypeDesc, values: RefValue[]): KeyColumn {
  const n = values.length;
  const hasNull = values.some((v) => v === null || v === undefined);
  const valid = hasNull ? Uint8Array.from(values, (v) => (v === null || v === undefined ? 0 : 1)) : null;
  let arr: TypedArray;
  let offsets: Int32Array | null = null;
  const isNull = (v: RefValue | undefined) => v === null || v === undefined;
  switch (type.kind) {
    case 'int': {
      const ctors = { 8: [Int8Array, Uint8Array], 16: [Int16Array, Uint16Array], 32: [Int32Array, Uint32Array] } as const;
      if (type.bits === 64) {
        const a = type.signed ? new BigInt64Array(n) : new BigUint64Array(n);
        values.forEach((v, i) => {
          if (!isNull(v)) a[i] = BigInt(v as number | bigint);
        });
        arr = a;
      } else {
        const C = ctors[type.bits][type.signed ? 0 : 1];
        const a = new C(n);
        values.forEach((v, i) => {
          if (!isNull(v)) a[i] = Number(v);
        });
        arr = a;
      }
      break;
    }
    case 'float': {
      const a = type.bits === 32 ? new Float32Array(n) : new Float64Array(n);
      values.forEach((v, i) => {
        if (!isNull(v)) a[i] = v as number;
      });
      arr = a;
      break;
    }
    case 'bool':
      arr = Uint8Array.from(values, (v) => (v === true ? 1 : 0));
      break;
    case 'decimal': {
      const a = new Uint32Array(4 * n);
      values.forEach((v, i) => {
        if (isNull(v)) return;
        const u = BigInt.asUintN(128, BigInt(v as bigint));
        for (let k = 0; k < 4; k++) a[4 * i + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
      });
      arr = a;
      break;
    }
    case 'date':
    case 'timestamp':
    case 'duration': {
      if (type.kind === 'date' && type.unit === 'day') {
        arr = Int32Array.from(values, (v) => (isNull(v) ? 0 : Number(v)));
        break;
      }
      const a = new BigInt64Array(n);
      values.forEach((v, i) => {
        if (!isNull(v)) a[i] = BigInt(v as number | bigint);
      });
      arr = a;
      break;
    }
    case 'utf8':
    case 'largeUtf8':
    case 'binary':
    case 'largeBinary': {
      const enc = new TextEncoder();
      const parts = values.map((v) => (isNull(v) ? new Uint8Array(0) : v instanceof Uint8Array ? v : enc.encode(String(v))));
      offsets = new Int32Array(n + 1);
      let total = 0;
      parts.forEach((p, i) => {
        total += p.length;
        offsets![i + 1] = total;
      });
      const bytes = new Uint8Array(total);
      parts.forEach((p, i) => bytes.set(p, offsets![i]!));
      arr = bytes;
      break;
    }
    default:
      // nested measures: only validity is read (take functions gather the column)
      arr = new Uint8Array(0);
  }
  return { type, length: n, values: arr, offsets, valid };
}

export interface KernelHarness {
  rows: RefRow[];
  input: WindowKernelInput;
  /** perm[sortedPosition] = input row index. */
  perm: Uint32Array;
}

/** Rows → sorted kernel input, the way the worker builds it. */
export function windowKernelInputFromRows(rows: RefRow[], schema: FieldDesc[], options: WindowOptions): KernelHarness {
  const window = resolveWindow(options, schema);
  const n = rows.length;
  const column = (name: string, type: TypeDesc) => keyColumnFromValues(type, rows.map((r) => r[name] ?? null));
  const pkeys = window.partitionBy.map((p) => column(p.column, p.type));
  const groups = pkeys.length > 0 ? groupIds(pkeys, n, true) : null;
  const okeys = window.orderBy.map((k) => column(k.column, k.type));
  const perm = argsortKeys(
    okeys.map((c, k) => ({ column: c, descending: window.orderBy[k]!.descending, nullsFirst: window.orderBy[k]!.nulls === 'first' })),
    n,
    groups?.ids,
  );
  const measures = window.measures.map((m) => permuteKey(column(m.column, m.type), perm, fresh as never));
  return {
    rows,
    perm,
    input: {
      n,
      groupStarts: groups ? groupStartsOf(groups.ids, groups.groups) : Uint32Array.of(0, n),
      order: okeys.map((k) => permuteKey(k, perm, fresh as never)),
      measures,
      window,
      distinctIds: measures.map((m, i) => (window.columns.some((c) => c.fn === 'countDistinct' && c.measure === i) ? distinctIdsOf(m, n) : null)),
    },
  };
}

function literalValue(lit: ResolvedLiteral, type: TypeDesc): RefValue {
  switch (lit.kind) {
    case 'null':
      return null;
    case 'bool':
    case 'string':
      return lit.value;
    case 'float':
      return type.kind === 'float' && type.bits === 32 ? Math.fround(lit.value) : lit.value;
    case 'bytes':
      return Uint8Array.from(Buffer.from(lit.hex, 'hex'));
    case 'int':
      return jsInt(BigInt(lit.value), type);
  }
}

function jsInt(v: bigint, t: TypeDesc): RefValue {
  if (t.kind === 'int' && t.bits < 64) return Number(v);
  if (t.kind === 'date' && t.unit === 'day') return Number(v);
  return v;
}

/** Kernel outputs (sorted order) → JS values in input order. */
export function kernelOutputToRows(outs: WindowColumnOut[], h: KernelHarness): Record<string, RefOut[]> {
  const res: Record<string, RefOut[]> = {};
  const { window } = h.input;
  window.columns.forEach((col, c) => {
    const out = outs[c]!;
    const vals: RefOut[] = new Array(h.perm.length).fill(null);
    if (out.kind === 'take') {
      const mcol = window.measures[out.measure]!.column;
      h.perm.forEach((row, pos) => {
        const j = out.index[pos]!;
        if (j >= 0) vals[row] = h.rows[h.perm[j]!]![mcol] ?? null;
        else if (j === TAKE_DEFAULT) vals[row] = literalValue(col.default!, col.type);
      });
    } else {
      h.perm.forEach((row, pos) => {
        if (out.valid && out.valid[pos] === 0) return;
        if (col.type.kind === 'decimal') {
          const w = out.values as Uint32Array;
          let u = 0n;
          for (let k = 3; k >= 0; k--) u = (u << 32n) | BigInt(w[4 * pos + k]!);
          vals[row] = BigInt.asIntN(128, u);
        } else vals[row] = out.values[pos]! as number | bigint;
      });
    }
    res[col.name] = vals;
  });
  return res;
}

/** Runs the fast (or naive) kernel on rows; outputs in input order. */
export function runKernelOnRows(rows: RefRow[], schema: FieldDesc[], options: WindowOptions, naive = false): { h: KernelHarness; outs: WindowColumnOut[]; values: Record<string, RefOut[]> } {
  const h = windowKernelInputFromRows(rows, schema, options);
  // Memory asked for 'overwritten' comes full of old bytes, as a task's reused scratch does.
  const outs = naive ? computeWindowNaive(h.input, dirtyWhenOverwritten) : computeWindow(h.input, dirtyWhenOverwritten);
  return { h, outs, values: kernelOutputToRows(outs, h) };
}
