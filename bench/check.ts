/**
 * What each system's result is checked by, outside the timing: the row count and, per checked
 * column, the count of non-NULL values and (numeric columns) their sum. Sums do not depend on
 * row order, so Sluice (input order), Polars (sort order) and DuckDB (any order) compare;
 * integer sums are exact while they stay below 2^53, float sums agree to ~1e-9.
 *
 * `digest` (spill runs) is order-sensitive and independent of batch boundaries: per column one
 * SHA-1 over its validity (a byte per row), one over its string lengths and one over its values
 * with NULL slots zeroed (fixed width) or its bytes (strings), then one SHA-1 over them all.
 */
import { createHash, type Hash } from 'node:crypto';
import { type Data, type RecordBatch, Type } from 'apache-arrow';

/** `int`: the sum is of integers (compared exactly) */
export interface ColumnCheck { count: number; sum?: number; int?: boolean }
export interface Check { rows: number; columns: Record<string, ColumnCheck> }

const isValid = (d: Data, i: number): boolean => {
  if (!d.nullBitmap || d.nullCount === 0) return true;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3]! & (1 << (j & 7))) !== 0;
};

/** adds the values of one column chunk to `c` (typed-array loops; int64 summed through two 32-bit words) */
function addChunk(d: Data, c: ColumnCheck): void {
  const n = d.length;
  let count = 0;
  for (let i = 0; i < n; i++) if (isValid(d, i)) count++;
  c.count += count;
  const t = d.type.typeId;
  if (t !== Type.Int && t !== Type.Float && t !== Type.Timestamp) return;
  c.int = t !== Type.Float;
  const v = d.values as ArrayLike<number> & { BYTES_PER_ELEMENT: number; buffer: ArrayBufferLike; byteOffset: number };
  let acc = 0;
  if (v.BYTES_PER_ELEMENT === 8 && !(v instanceof Float64Array)) {
    const w = new Int32Array(v.buffer, v.byteOffset + d.offset * 8, n * 2);
    const unsigned = t === Type.Int && !(d.type as unknown as { isSigned: boolean }).isSigned;
    for (let i = 0; i < n; i++) if (isValid(d, i)) acc += (w[2 * i]! >>> 0) + (unsigned ? w[2 * i + 1]! >>> 0 : w[2 * i + 1]!) * 4294967296;
  } else {
    for (let i = 0; i < n; i++) if (isValid(d, i)) acc += Number(v[d.offset + i]);
  }
  c.sum = (c.sum ?? 0) + acc;
}

export class Checker {
  private readonly check: Check;
  private readonly hashes = new Map<string, ColumnHash>();
  constructor(private readonly columns: string[], private readonly digest = false) {
    this.check = { rows: 0, columns: Object.fromEntries(columns.map((c) => [c, { count: 0 }])) };
  }

  add(batch: RecordBatch): void {
    this.check.rows += batch.numRows;
    for (const name of this.columns) {
      const col = batch.getChild(name);
      if (!col) throw new Error(`result has no column ${JSON.stringify(name)} (columns: ${batch.schema.fields.map((f) => f.name).join(', ')})`);
      for (const d of col.data) addChunk(d, this.check.columns[name]!);
    }
    if (this.digest) {
      batch.schema.fields.forEach((f, i) => {
        let h = this.hashes.get(f.name);
        if (!h) { h = { valid: createHash('sha1'), lengths: createHash('sha1'), values: createHash('sha1') }; this.hashes.set(f.name, h); }
        hashColumn(h, batch.data.children[i]!);
      });
    }
  }

  result(): { check: Check; digest?: string } {
    if (!this.digest) return { check: this.check };
    const all = createHash('sha1');
    for (const [name, h] of [...this.hashes].sort(([a], [b]) => (a < b ? -1 : 1))) all.update(`${name}:${h.valid.digest('hex')}:${h.lengths.digest('hex')}:${h.values.digest('hex')};`);
    return { check: this.check, digest: all.digest('hex').slice(0, 16) };
  }
}

/**
 * Validity and values go to two hashes: one stream of each across the batches, so the digest
 * does not depend on where the batches end (one hash fed both per batch would).
 */
interface ColumnHash { valid: Hash; lengths: Hash; values: Hash }

function hashColumn(ch: ColumnHash, d: Data): void {
  const n = d.length;
  const h = ch.values;
  const valid = new Uint8Array(n);
  for (let i = 0; i < n; i++) valid[i] = isValid(d, i) ? 1 : 0;
  ch.valid.update(valid);
  const t = d.type.typeId;
  if (t === Type.Utf8 || t === Type.Binary) {
    const o = d.valueOffsets as Int32Array; const bytes = d.values as Uint8Array;
    // value offsets are pre-sliced too (row 0 at index 0)
    const lens = new Int32Array(n);
    for (let i = 0; i < n; i++) lens[i] = valid[i] ? o[i + 1]! - o[i]! : 0;
    ch.lengths.update(new Uint8Array(lens.buffer));
    for (let i = 0; i < n; i++) if (valid[i]) h.update(bytes.subarray(o[i]!, o[i + 1]!));
    return;
  }
  const v = d.values as (ArrayLike<number> & ArrayBufferView & { BYTES_PER_ELEMENT: number }) | undefined;
  if (!v || !v.BYTES_PER_ELEMENT || d.children.length) { h.update(`type ${d.type}`); return; }
  const bpe = v.BYTES_PER_ELEMENT;
  // arrow-js pre-slices fixed-width values: row 0 is at index 0 whatever d.offset is
  const bytes = new Uint8Array(v.buffer, v.byteOffset, n * bpe).slice();
  if (d.nullCount > 0) for (let i = 0; i < n; i++) if (!valid[i]) bytes.fill(0, i * bpe, (i + 1) * bpe);
  h.update(bytes);
}

/**
 * Compares a system's check with Sluice's: undefined when they agree, otherwise what differs.
 * Integer sums must be equal; float sums agree to a relative 1e-9.
 */
export function compareChecks(ref: Check, other: Check): string | undefined {
  const diffs: string[] = [];
  if (ref.rows !== other.rows) diffs.push(`rows ${other.rows} vs ${ref.rows}`);
  for (const [name, r] of Object.entries(ref.columns)) {
    const o = other.columns[name];
    if (!o) { diffs.push(`no column ${name}`); continue; }
    if (o.count !== r.count) diffs.push(`${name}: ${o.count} non-NULL vs ${r.count}`);
    if (r.sum !== undefined && o.sum !== undefined) {
      const tol = r.int && o.int && Math.abs(r.sum) < 2 ** 53 ? 0 : 1e-9 * Math.max(1, Math.abs(r.sum));
      if (Math.abs(r.sum - o.sum) > tol) diffs.push(`${name}: sum ${o.sum} vs ${r.sum}`);
    }
  }
  return diffs.length ? diffs.join('; ') : undefined;
}
