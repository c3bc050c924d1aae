/**
 * Assembly of an output range (src/worker/assemble-task.ts): pieces whose rows interleave in
 * row-id order come out in row-id order, for the scattered column kinds (fixed-width, bool,
 * with NULLs, at bit offsets) and the concatenated ones (utf8); a missing or repeated row id
 * is refused.
 */
import fc from 'fast-check';
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { schemaFromArrow } from '../../src/columns/arrow-types.js';
import { describeData, rebuildData, toSharedData } from '../../src/columns/shared.js';
import { runAssembleTask } from '../../src/worker/assemble-task.js';
import { beginScratch, endScratch } from '../../src/worker/scratch.js';
import type { AssembleTask, ChunkDesc } from '../../src/types/tasks.js';

type Row = { id: number; i: number | null; b: boolean | null; f: number; l: bigint | null; s: string | null };

const FIXED = [new A.Field('i', new A.Int32(), true), new A.Field('b', new A.Bool(), true), new A.Field('f', new A.Float64(), false), new A.Field('l', new A.Int64(), true)];
const WITH_TEXT = [...FIXED, new A.Field('s', new A.Utf8(), true)];

/** Rows of one piece as a chunk: columns made from a longer vector and sliced (bitmaps at a bit offset). */
function chunkOf(rows: Row[], fields: A.Field[], pad: number): ChunkDesc {
  const all = [...Array.from({ length: pad }, () => rows[0]!), ...rows];
  const col = (name: string, type: A.DataType): A.Data => toSharedData(A.vectorFromArray(all.map((r) => r[name as keyof Row]) as never[], type).data[0]!).slice(pad, rows.length);
  return {
    length: rows.length,
    rowIds: describeData(col('id', new A.Uint32())),
    columns: fields.map((f) => describeData(col(f.name, f.type))),
  };
}

function assemble(pieces: Row[][], fields: A.Field[], base: number, rows: number, pad: number) {
  const task: AssembleTask = {
    kind: 'assemble',
    input: { chunks: pieces.filter((p) => p.length > 0).map((p) => chunkOf(p, fields, pad)), spills: [], schema: schemaFromArrow(new A.Schema(fields)) },
    base,
    rows,
    scratch: null,
  };
  beginScratch(null);
  return runAssembleTask(task).finally(() => endScratch());
}

const rowArb = (id: number) =>
  fc.record({
    i: fc.option(fc.integer({ min: -1000, max: 1000 }), { freq: 4 }),
    b: fc.option(fc.boolean(), { freq: 4 }),
    f: fc.double({ noNaN: true }),
    l: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { freq: 4 }),
    s: fc.option(fc.string({ maxLength: 5 }), { freq: 4 }),
  }).map((r) => ({ id, ...r }));

describe('runAssembleTask', () => {
  for (const [label, fields] of [['fixed-width and bool columns (scattered)', FIXED], ['with a utf8 column (gathered)', WITH_TEXT]] as const) {
    it(`puts interleaved pieces in row-id order: ${label}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 200 }).chain((n) => fc.tuple(fc.tuple(...Array.from({ length: n }, (_, k) => rowArb(k))), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: n, maxLength: n }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 1000 }))),
          async ([rows, pieceOf, pad, base]) => {
            const based = rows.map((r) => ({ ...r, id: r.id + base }));
            // rows dealt to 4 pieces, each piece in a shuffled but fixed order (reversed)
            const pieces = [0, 1, 2, 3].map((q) => based.filter((_, k) => pieceOf[k] === q).reverse());
            const out = await assemble(pieces, [...fields], base, rows.length, pad);
            expect(out.length).toBe(rows.length);
            fields.forEach((f, c) => {
              const got = [...A.makeVector(rebuildData(out.columns[c]!))];
              const want = based.map((r) => r[f.name as keyof Row]);
              expect(got).toEqual(want);
            });
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('refuses a range with a row missing or repeated', async () => {
    const r = (id: number): Row => ({ id, i: id, b: true, f: id, l: 1n, s: 'x' });
    await expect(assemble([[r(0), r(1)], [r(1)]], FIXED, 0, 3, 0)).rejects.toThrow(/out of place/);
    await expect(assemble([[r(0), r(2)]], FIXED, 0, 3, 0)).rejects.toThrow(/holds 2 rows, expected 3/);
    await expect(assemble([[r(0), r(5)]], WITH_TEXT, 0, 2, 0)).rejects.toThrow(/out of place/);
  });
});
