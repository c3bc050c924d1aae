/**
 * Zip explode through the engine: differential against a direct expectation on random lists
 * (lengths incl. 0, NULL lists, NULL elements), both ignoreEmptyAndNull modes, ordinality,
 * computed inputs; threads 0/1/2, batch sizes 1/7/1024; the length-mismatch error names the
 * global row; batch and streaming (async iterable of small batches) paths.
 */
import * as A from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExecutionError, PlanError, split } from '../../src/index.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { enginePool, SETTINGS } from '../support/engines.js';
import { makeColumn, readData, toArrowField } from '../support/explode-arrow.js';

const engineFor = enginePool();

const utf8: TypeDesc = { kind: 'utf8' };
const int64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const schema: FieldDesc[] = [
  { name: 'id', type: int64, nullable: false },
  { name: 'items', type: { kind: 'list', child: { name: 'item', type: utf8, nullable: true } }, nullable: true },
  { name: 'label', type: utf8, nullable: true },
  { name: 'quantities', type: { kind: 'list', child: { name: 'item', type: int64, nullable: true } }, nullable: true },
  { name: 'tags', type: utf8, nullable: true },
];

type Row = { id: bigint; items: Array<string | null> | null; label: string | null; quantities: Array<bigint | null> | null; tags: string | null };

function table(rows: Row[], batchSize: number): A.Table {
  const arrowSchema = new A.Schema(schema.map(toArrowField));
  const cols = schema.map((f) => makeColumn(rows.map((r) => r[f.name as keyof Row]), f.type));
  const batches: A.RecordBatch[] = [];
  for (let s = 0; s < rows.length; s += batchSize) {
    const len = Math.min(batchSize, rows.length - s);
    batches.push(new A.RecordBatch(arrowSchema, A.makeData({ type: new A.Struct(arrowSchema.fields), length: len, nullCount: 0, children: cols.map((c) => c.slice(s, len)) })));
  }
  return batches.length ? new A.Table(arrowSchema, batches) : new A.Table(arrowSchema);
}

function values(t: A.Table, name: string): unknown[] {
  return t.getChild(name)!.data.flatMap((d) => readData(d));
}

const rowArb = fc.nat({ max: 4 }).chain((len) =>
  fc.record({
    id: fc.bigInt({ min: 0n, max: 1000n }),
    kind: fc.constantFrom('list', 'empty', 'null', 'mixed'),
    items: fc.array(fc.option(fc.constantFrom('apple', 'pear', 'é', ''), { nil: null }), { minLength: len, maxLength: len }),
    quantities: fc.array(fc.option(fc.bigInt({ min: -3n, max: 3n }), { nil: null }), { minLength: len, maxLength: len }),
    label: fc.option(fc.constantFrom('A', 'B'), { nil: null }),
    tags: fc.option(fc.constantFrom('a,b', 'x', ''), { nil: null }),
  }),
);

function toRow(r: { id: bigint; kind: string; items: Array<string | null>; quantities: Array<bigint | null>; label: string | null; tags: string | null }): Row {
  // 'mixed': one list empty and the other NULL — both effective length 0, not a mismatch.
  if (r.kind === 'empty') return { id: r.id, items: [], quantities: [], label: r.label, tags: r.tags };
  if (r.kind === 'null') return { id: r.id, items: null, quantities: null, label: r.label, tags: r.tags };
  if (r.kind === 'mixed') return { id: r.id, items: [], quantities: null, label: r.label, tags: r.tags };
  return { id: r.id, items: r.items, quantities: r.quantities, label: r.label, tags: r.tags };
}

describe('explode through the engine', () => {
  it('zips lists by position, in input order, identically across settings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { maxLength: 30 }), fc.boolean(), fc.boolean(), fc.constantFrom(...SETTINGS), fc.constantFrom(1, 7, 1024), async (raw, ignore, ord, s, b) => {
        const rows = raw.map(toRow);
        const out = await engineFor(s)
          .fromArrow(table(rows, b))
          .explode(['items', 'quantities'], { outputColumn: ['item', 'quantity'], ignoreEmptyAndNull: ignore, ...(ord ? { ordinality: 'pos' } : {}) })
          .collect();
        const expected: Record<string, unknown[]> = { id: [], item: [], label: [], quantity: [], tags: [], pos: [] };
        for (const r of rows) {
          const len = r.items?.length ?? 0;
          if (len === 0 && ignore) continue;
          for (let e = 0; e < Math.max(1, len); e++) {
            expected.id!.push(r.id);
            expected.item!.push(len === 0 ? null : r.items![e]);
            expected.label!.push(r.label);
            expected.quantity!.push(len === 0 ? null : r.quantities![e]);
            expected.tags!.push(r.tags);
            expected.pos!.push(len === 0 ? null : e + 1);
          }
        }
        const names = ord ? ['id', 'item', 'label', 'quantity', 'pos', 'tags'] : ['id', 'item', 'label', 'quantity', 'tags'];
        expect(out.schema.fields.map((f) => f.name)).toEqual(names);
        for (const n of names) expect(values(out, n)).toEqual(expected[n]);
      }),
      { numRuns: 80 },
    );
  });

  it('fails at execution with EXPLODE_LENGTH_MISMATCH naming the global row, in both modes', async () => {
    const rows: Row[] = Array.from({ length: 50 }, (_, i) => ({ id: BigInt(i), items: ['a'], label: null, quantities: [1n], tags: null }));
    rows[37] = { id: 37n, items: null, label: null, quantities: [1n, 2n], tags: null }; // the driver list is NULL
    for (const ignoreEmptyAndNull of [false, true]) {
      for (const s of [SETTINGS[0]!, SETTINGS[2]!]) {
        const err = await engineFor(s)
          .fromArrow(table(rows, 7))
          .explode(['items', 'quantities'], { ignoreEmptyAndNull })
          .collect()
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ExecutionError);
        expect((err as ExecutionError).code).toBe('EXPLODE_LENGTH_MISMATCH');
        expect((err as ExecutionError).message).toMatch(/row 37\b/);
        expect((err as ExecutionError).message).toMatch(/items/);
        expect((err as ExecutionError).message).toMatch(/quantities/);
      }
    }
  });

  it('appends computed inputs after the existing columns and keeps what they read', async () => {
    const rows: Row[] = [
      { id: 1n, items: ['apple', 'pear'], label: 'A', quantities: [2n, 3n], tags: 'x,y' },
      { id: 2n, items: [], label: 'B', quantities: [], tags: null },
    ];
    const out = await engineFor(SETTINGS[1]!).fromArrow(table(rows, 1)).explode(['items', split('tags', ',')], {}).collect().catch((e) => e);
    // items has 2 elements and split(tags) 2 on row 0; row 1: empty and NULL (both length 0).
    expect(out).toBeInstanceOf(A.Table);
    const t = out as A.Table;
    expect(t.schema.fields.map((f) => f.name)).toEqual(['id', 'items', 'label', 'quantities', 'tags', "split(tags, ',')"]);
    expect(values(t, 'items')).toEqual(['apple', 'pear', null]);
    expect(values(t, "split(tags, ',')")).toEqual(['x', 'y', null]);
    expect(values(t, 'tags')).toEqual(['x,y', 'x,y', null]);
  });

  it('streams an async iterable of many small batches', async () => {
    const rows: Row[] = Array.from({ length: 500 }, (_, i) => ({ id: BigInt(i), items: i % 5 === 0 ? null : ['a', 'b'], label: 'L', quantities: i % 5 === 0 ? [] : [1n, 2n], tags: null }));
    const src = table(rows, 3);
    async function* batches() {
      for (const b of src.batches) yield b;
    }
    let got = 0;
    let batchesOut = 0;
    for await (const b of engineFor(SETTINGS[3]!).fromArrow(batches()).explode(['items', 'quantities'], { ignoreEmptyAndNull: true }).stream()) {
      got += b.numRows;
      batchesOut++;
    }
    expect(got).toBe(400 * 2);
    expect(batchesOut).toBeGreaterThan(1);
  });

  it('rejects a non-list input in a multi-input explode before reading any row', async () => {
    let pulled = 0;
    const src = table([{ id: 1n, items: ['a'], label: 'A', quantities: [1n], tags: null }], 1);
    async function* batches() {
      for (const b of src.batches) {
        pulled++;
        yield b;
      }
    }
    const err = await engineFor(SETTINGS[0]!).fromArrow(batches()).explode(['items', 'label']).collect().catch((e) => e);
    expect(err).toBeInstanceOf(PlanError);
    expect((err as PlanError).code).toBe('EXPLODE_NOT_LIST');
    expect(pulled).toBe(1); // the schema of a one-shot iterable comes with its first batch
  });
});
