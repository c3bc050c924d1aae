/**
 * Spill files: create / append / finish / read back (Arrow IPC stream), including batches whose
 * buffers live in SharedArrayBuffers (sliced, with NULLs and plain Utf8); a damaged spill file
 * is ExecutionError SPILL_UNREADABLE; discard() removes the file.
 */
import * as arrow from 'apache-arrow';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExecutionError } from '../../src/errors.js';
import { readSpill, readSpillAll, SpillWriter } from '../../src/memory/spill-file.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-mem-spill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sab<T extends ArrayBufferView>(make: (buf: SharedArrayBuffer, offset: number, length: number) => T, bytes: number, offset: number, length: number): T {
  return make(new SharedArrayBuffer(bytes), offset, length);
}

/** A 4-row batch whose every buffer is a view into a SharedArrayBuffer (not at offset 0). */
function sharedBatch(k: number): arrow.RecordBatch {
  const ids = sab((b, o, n) => new BigInt64Array(b, o, n), 128, 16, 4);
  ids.set([BigInt(k), -(2n ** 63n), 2n ** 63n - 1n, 7n]);
  const xs = sab((b, o, n) => new Float64Array(b, o, n), 64, 8, 4);
  xs.set([0.5, NaN, -0, k]);
  const valid = sab((b, o, n) => new Uint8Array(b, o, n), 16, 3, 1);
  valid[0] = 0b1011; // row 2 is NULL
  const strs = ['Zürich', '', 'never seen', `日本${k}`];
  const enc = strs.map((s) => Buffer.from(s));
  const offsets = sab((b, o, n) => new Int32Array(b, o, n), 64, 4, 5);
  let pos = 0;
  enc.forEach((e, i) => {
    offsets[i] = pos;
    pos += e.length;
    offsets[i + 1] = pos;
  });
  const bytes = sab((b, o, n) => new Uint8Array(b, o, n), 256, 5, pos);
  let at = 0;
  for (const e of enc) {
    bytes.set(e, at);
    at += e.length;
  }
  const schema = new arrow.Schema([
    new arrow.Field('id', new arrow.Int64(), false),
    new arrow.Field('x', new arrow.Float64(), true),
    new arrow.Field('s', new arrow.Utf8(), true),
  ]);
  const children = [
    arrow.makeData({ type: new arrow.Int64(), length: 4, nullCount: 0, data: ids }),
    arrow.makeData({ type: new arrow.Float64(), length: 4, nullCount: 1, nullBitmap: valid, data: xs }),
    arrow.makeData({ type: new arrow.Utf8(), length: 4, nullCount: 1, nullBitmap: valid, valueOffsets: offsets, data: bytes }),
  ];
  return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: 4, nullCount: 0, children }));
}

function rows(batches: arrow.RecordBatch[]): unknown[] {
  return batches.flatMap((b) => b.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : v))));
}

describe('spill files', () => {
  it('round trip SharedArrayBuffer-backed batches, sliced ones included', async () => {
    const b1 = sharedBatch(1);
    expect(b1.getChild('id')!.data[0]!.values.buffer).toBeInstanceOf(SharedArrayBuffer);
    const batches = [b1, sharedBatch(2).slice(1, 3), sharedBatch(3)];
    const p = join(dir, 'a.arrows');
    const w = await SpillWriter.create(p, b1.schema);
    for (const b of batches) await w.append(b);
    const info = await w.finish();
    expect(info).toEqual({ path: p, rows: 10, bytes: statSync(p).size });
    const back = await readSpillAll(p);
    expect(back.map((b) => b.numRows)).toEqual([4, 2, 4]);
    expect(rows(back)).toEqual(rows(batches));
    expect(rows(back)[2]).toContain('"x":null');
    expect(back[0]!.schema.fields.map((f) => String(f.type))).toEqual(['Int64', 'Float64', 'Utf8']);
    let n = 0;
    for await (const b of readSpill(p)) n += b.numRows;
    expect(n).toBe(10);
  });

  it('an empty spill reads back as no batches', async () => {
    const p = join(dir, 'empty.arrows');
    const w = await SpillWriter.create(p, sharedBatch(0).schema);
    expect((await w.finish()).rows).toBe(0);
    expect(await readSpillAll(p)).toEqual([]);
  });

  it('a damaged spill file is ExecutionError SPILL_UNREADABLE naming the file', async () => {
    const p = join(dir, 'good.arrows');
    const w = await SpillWriter.create(p, sharedBatch(0).schema);
    await w.append(sharedBatch(0));
    await w.finish();
    const cut = join(dir, 'cut.arrows');
    writeFileSync(cut, readFileSync(p).subarray(0, 200));
    const err = await readSpillAll(cut).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutionError);
    expect((err as ExecutionError).code).toBe('SPILL_UNREADABLE');
    expect((err as ExecutionError).message).toContain(cut);
  });

  it('discard() deletes the file; create() refuses an existing path', async () => {
    const p = join(dir, 'gone.arrows');
    const w = await SpillWriter.create(p, sharedBatch(0).schema);
    await w.append(sharedBatch(0));
    await w.discard();
    expect(existsSync(p)).toBe(false);
    writeFileSync(p, 'x');
    await expect(SpillWriter.create(p, sharedBatch(0).schema)).rejects.toBeInstanceOf(ExecutionError);
  });
});
