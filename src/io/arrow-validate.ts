/**
 * Structural checks of decoded Arrow data, so a corrupt input is an error rather than a wrong
 * table: apache-arrow's IPC reader takes buffer regions as they come (`subarray` clamps a
 * region that runs past the body) and never checks offsets or dictionary indices.
 *
 * `dataProblem(data)` returns what is wrong with a column (or null): a buffer shorter than the
 * rows need, value offsets that decrease or point past their values, children shorter than
 * their parent needs, dictionary indices outside the dictionary. O(rows) per column, typed
 * arrays only. Conventions of arrow-js: fixed-width values and value offsets are pre-sliced
 * (row 0 at index 0), validity and boolean bitmaps count `offset` in bits.
 */
import * as A from 'apache-arrow';

type Offsets = Int32Array | BigInt64Array;

function offsetsProblem(offsets: Offsets | undefined, n: number, limit: number, what: string): string | null {
  if (!offsets || offsets.length < n + 1) return `${what} offsets buffer holds ${offsets?.length ?? 0} entries, ${n + 1} needed`;
  if (offsets instanceof BigInt64Array) {
    let prev = offsets[0]!;
    if (prev < 0n) return `${what} offsets start below 0`;
    for (let i = 1; i <= n; i++) {
      const v = offsets[i]!;
      if (v < prev) return `${what} offsets decrease at row ${i - 1}`;
      prev = v;
    }
    return prev > BigInt(limit) ? `${what} offsets point past the end of their values (${prev} > ${limit})` : null;
  }
  let prev = offsets[0]!;
  if (prev < 0) return `${what} offsets start below 0`;
  for (let i = 1; i <= n; i++) {
    const v = offsets[i]!;
    if (v < prev) return `${what} offsets decrease at row ${i - 1}`;
    prev = v;
  }
  return prev > limit ? `${what} offsets point past the end of their values (${prev} > ${limit})` : null;
}

function bitmapProblem(bits: Uint8Array | undefined | null, offset: number, n: number, what: string): string | null {
  const need = (offset + n + 7) >> 3;
  return (bits?.length ?? 0) < need ? `${what} bitmap holds ${bits?.length ?? 0} bytes, ${need} needed` : null;
}

/** What is structurally wrong with `data` (null when nothing). */
export function dataProblem(data: A.Data): string | null {
  const n = data.length;
  const t = data.type;
  if (n < 0 || !Number.isSafeInteger(n)) return `bad row count ${n}`;
  if (n === 0) return null; // nothing to read (writers may leave out an empty column's buffers)
  if (t.typeId !== A.Type.Null && data.nullCount > 0) {
    if (data.nullCount > n) return `null count ${data.nullCount} above the row count ${n}`;
    const p = bitmapProblem(data.nullBitmap, data.offset, n, 'validity');
    if (p) return p;
  }
  switch (t.typeId) {
    case A.Type.Null:
      return null;
    case A.Type.Bool:
      return bitmapProblem(data.values as Uint8Array, data.offset, n, 'value');
    case A.Type.Int:
    case A.Type.Float:
    case A.Type.Decimal:
    case A.Type.Date:
    case A.Type.Time:
    case A.Type.Timestamp:
    case A.Type.Interval:
    case A.Type.Duration:
    case A.Type.FixedSizeBinary: {
      const need = n * data.stride;
      const have = (data.values as ArrayLike<unknown> | undefined)?.length ?? 0;
      return have < need ? `values buffer holds ${have} values, ${need} needed` : null;
    }
    case A.Type.Utf8:
    case A.Type.Binary:
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary:
      return offsetsProblem(data.valueOffsets as Offsets, n, (data.values as Uint8Array | undefined)?.length ?? 0, 'value');
    case A.Type.Utf8View:
    case A.Type.BinaryView: {
      const have = (data.values as Uint8Array | undefined)?.byteLength ?? 0;
      return have < n * 16 ? `views buffer holds ${have} bytes, ${n * 16} needed` : null;
    }
    case A.Type.List:
    case A.Type.LargeList:
    case A.Type.Map: {
      const child = data.children[0];
      if (!child) return 'no child column';
      return offsetsProblem(data.valueOffsets as Offsets, n, child.length, 'list') ?? childProblem(child);
    }
    case A.Type.FixedSizeList: {
      const child = data.children[0];
      const need = n * (t as A.FixedSizeList).listSize;
      if (!child || child.length < need) return `child column holds ${child?.length ?? 0} values, ${need} needed`;
      return childProblem(child);
    }
    case A.Type.Struct:
      for (const c of data.children) {
        if (c.length < n) return `field column holds ${c.length} rows, ${n} needed`;
        const p = childProblem(c);
        if (p) return p;
      }
      return null;
    case A.Type.Dictionary:
      return dictionaryProblem(data as A.Data<A.Dictionary>);
    default:
      return null;
  }
}

function childProblem(child: A.Data): string | null {
  const p = dataProblem(child);
  return p ? `child: ${p}` : null;
}

function dictionaryProblem(data: A.Data<A.Dictionary>): string | null {
  const n = data.length;
  const keys = data.values as ArrayLike<number | bigint> | undefined;
  if ((keys?.length ?? 0) < n) return `indices buffer holds ${keys?.length ?? 0} values, ${n} needed`;
  const size = data.dictionary?.length ?? 0;
  for (const chunk of data.dictionary?.data ?? []) {
    const p = dataProblem(chunk);
    if (p) return `dictionary: ${p}`;
  }
  const valid = data.nullCount > 0 ? data.nullBitmap : null;
  for (let i = 0; i < n; i++) {
    const k = Number(keys![i]!);
    if (k >= 0 && k < size) continue;
    const bit = data.offset + i;
    if (valid && ((valid[bit >> 3]! >> (bit & 7)) & 1) === 0) continue;
    return `row ${i}: dictionary index ${k} outside the dictionary of ${size} values`;
  }
  return null;
}

/** The first problem in a batch's columns, as "column NAME: …" (null when none). */
export function batchProblem(batch: A.RecordBatch): string | null {
  const fields = batch.schema.fields;
  const cols = batch.data.children;
  if (cols.length !== fields.length) return `the batch has ${cols.length} columns, the schema ${fields.length}`;
  for (let c = 0; c < cols.length; c++) {
    if (cols[c]!.length !== batch.numRows) return `column ${fields[c]!.name}: ${cols[c]!.length} rows in a batch of ${batch.numRows}`;
    const p = dataProblem(cols[c]!);
    if (p) return `column ${fields[c]!.name}: ${p}`;
  }
  return null;
}
