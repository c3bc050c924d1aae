/**
 * A partition's spilled pieces read back in the worker (src/worker/partition-input.ts): batches
 * apache-arrow wrote read as views of the bytes (flat columns) or through its reader (others),
 * merged with in-memory chunks in row-id order; a damaged piece is SPILL_UNREADABLE naming the
 * file, never a wrong result.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaFromArrow } from '../../src/columns/arrow-types.js';
import { describeData, toSharedData } from '../../src/columns/shared.js';
import { ExecutionError } from '../../src/errors.js';
import { readBatchMessage } from '../../src/io/ipc-batch-meta.js';
import type { PartitionInput, SpillPiece } from '../../src/types/tasks.js';
import { loadPartition } from '../../src/worker/partition-input.js';
import { beginScratch, endScratch } from '../../src/worker/scratch.js';
import { rejection } from '../support/rejection.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-pinput-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A spill file of `batches` (row ids first) and its pieces: one per batch. */
function spillFile(name: string, table: A.Table): { path: string; pieces: SpillPiece[]; bytes: Uint8Array } {
  const bytes = A.tableToIPC(table, 'stream');
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const framed = (at: number): number => 8 + view.getInt32(at + 4, true);
  const schemaBytes = framed(0);
  const pieces: SpillPiece[] = [];
  let at = schemaBytes;
  for (const b of table.batches) {
    const end = readBatchMessage(bytes, at)!.next;
    pieces.push({ path, schemaBytes, start: at, end, rows: b.numRows });
    at = end;
  }
  return { path, pieces, bytes };
}

function tableOf(ids: number[], fields: Record<string, A.Vector>): A.Table {
  return new A.Table({ __row_id: A.vectorFromArray(ids, new A.Uint32()), ...fields });
}

async function load(input: PartitionInput) {
  beginScratch(null);
  try {
    const p = await loadPartition(input);
    return { ids: [...p.rowIds.subarray(0, p.n)], cols: p.columns.map((c) => [...A.makeVector(c)]) };
  } finally {
    endScratch();
  }
}

describe('loadPartition with spilled pieces', () => {
  it('reads flat columns (NULLs, utf8, bool, int64) of several batches and memory chunks in row-id order', async () => {
    const spilled = tableOf([4, 5, 6], {
      i: A.vectorFromArray([40, null, 60], new A.Int32()),
      s: A.vectorFromArray(['d', null, 'ffff'], new A.Utf8()),
      b: A.vectorFromArray([true, null, false], new A.Bool()),
      l: A.vectorFromArray([4n, 5n, null], new A.Int64()),
    });
    const second = tableOf([0, 1], {
      i: A.vectorFromArray([0, 10], new A.Int32()),
      s: A.vectorFromArray(['', 'bb'], new A.Utf8()),
      b: A.vectorFromArray([false, true], new A.Bool()),
      l: A.vectorFromArray([0n, -1n], new A.Int64()),
    });
    const both = new A.Table([...spilled.batches, ...second.batches]);
    const { pieces } = spillFile('flat.arrows', both);
    const memory = tableOf([2, 3], {
      i: A.vectorFromArray([20, 30], new A.Int32()),
      s: A.vectorFromArray(['c', 'cc'], new A.Utf8()),
      b: A.vectorFromArray([null, true], new A.Bool()),
      l: A.vectorFromArray([2n, 3n], new A.Int64()),
    });
    const shared = memory.batches[0]!.data.children.map((c) => describeData(toSharedData(c)));
    const schema = schemaFromArrow(new A.Schema(both.schema.fields.slice(1)));
    const got = await load({ chunks: [{ length: 2, rowIds: shared[0]!, columns: shared.slice(1) }], spills: pieces, schema });
    expect(got.ids).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(got.cols).toEqual([
      [0, 10, 20, 30, 40, null, 60],
      ['', 'bb', 'c', 'cc', 'd', null, 'ffff'],
      [false, true, null, true, true, null, false],
      [0n, -1n, 2n, 3n, 4n, 5n, null],
    ]);
  });

  it('reads nested columns through apache-arrow', async () => {
    const t = tableOf([1, 0], { xs: A.vectorFromArray([[1, 2], [3]], new A.List(new A.Field('item', new A.Int32(), true))) });
    const { pieces } = spillFile('nested.arrows', t);
    const got = await load({ chunks: [], spills: pieces, schema: schemaFromArrow(new A.Schema(t.schema.fields.slice(1))) });
    expect(got.ids).toEqual([0, 1]);
    expect(got.cols[0]!.map((v) => [...(v as A.Vector)])).toEqual([[3], [1, 2]]);
  });

  it('a damaged piece is SPILL_UNREADABLE naming the file', async () => {
    const t = tableOf([0, 1, 2], { s: A.vectorFromArray(['a', 'b', 'c'], new A.Utf8()) });
    const schema = schemaFromArrow(new A.Schema(t.schema.fields.slice(1)));
    const { path, pieces, bytes } = spillFile('damaged.arrows', t);
    const piece = pieces[0]!;
    // the last value offset of the utf8 column (buffer 3: after the row ids' two and its validity), pointed far past its bytes
    const damaged = bytes.slice();
    const msg = readBatchMessage(damaged, piece.start)!;
    new DataView(damaged.buffer).setInt32(msg.bodyStart + msg.buffers[2 * 3]! + 4 * 3, 1 << 20, true);
    writeFileSync(path, damaged);
    const err = await rejection(load({ chunks: [], spills: pieces, schema }));
    expect(err).toBeInstanceOf(ExecutionError);
    expect((err as ExecutionError).code).toBe('SPILL_UNREADABLE');
    expect((err as Error).message).toContain('damaged.arrows');
    // a string offset going backwards inside the bytes (the last one still in place)
    const backwards = bytes.slice();
    new DataView(backwards.buffer).setInt32(msg.bodyStart + msg.buffers[2 * 3]! + 4 * 1, 3, true);
    writeFileSync(path, backwards);
    expect(((await rejection(load({ chunks: [], spills: pieces, schema }))) as ExecutionError).code).toBe('SPILL_UNREADABLE');
    // a column shorter than its batch (its field node's length; arrow wrote the metadata, so the node is found by value)
    const short = bytes.slice();
    const metaAt = piece.start + 8;
    const dv = new DataView(short.buffer);
    let patched = false;
    for (let p = metaAt; p + 16 <= msg.bodyStart && !patched; p += 8) {
      // the second field node (the utf8 column): length 3, null count 0, right after the row ids' node
      if (dv.getInt32(p, true) === 3 && dv.getInt32(p + 8, true) === 0 && dv.getInt32(p + 16, true) === 3 && dv.getInt32(p + 24, true) === 0) {
        dv.setInt32(p + 16, 2, true);
        patched = true;
      }
    }
    expect(patched).toBe(true);
    writeFileSync(path, short);
    expect(((await rejection(load({ chunks: [], spills: pieces, schema }))) as ExecutionError).code).toBe('SPILL_UNREADABLE');
    // cut short
    writeFileSync(path, bytes.subarray(0, piece.end - 4));
    const cut = await rejection(load({ chunks: [], spills: pieces, schema }));
    expect((cut as ExecutionError).code).toBe('SPILL_UNREADABLE');
  });
});
