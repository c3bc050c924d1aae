import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Data } from 'apache-arrow';
import { explodeBatch } from '../../src/ops/explode-batch.js';
import { resolveExplode } from '../../src/ops/explode-spec.js';
import type { ExplodeInputSpec } from '../../src/ops/explode-spec.js';
import { ExecutionError } from '../../src/errors.js';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { checkLayout, makeColumn as makePlainColumn, normalize, readData } from '../support/explode-arrow.js';
import { toSharedData } from '../../src/columns/shared.js';

// Inputs in shared memory, as workers see them: a list's string bytes may be shared with the output.
const makeColumn: typeof makePlainColumn = (values, type) => toSharedData(makePlainColumn(values, type));
import { ReferenceMismatch, referenceExplode } from '../support/explode-reference.js';
import { mapType, structType } from '../support/explode-arbitraries.js';

const int32: TypeDesc = { kind: 'int', bits: 32, signed: true };
const int64: TypeDesc = { kind: 'int', bits: 64, signed: true };
const utf8: TypeDesc = { kind: 'utf8' };
const f = (name: string, type: TypeDesc): FieldDesc => ({ name, type, nullable: true });
const listOf = (t: TypeDesc, kind: 'list' | 'largeList' = 'list'): TypeDesc => ({ kind, child: { name: 'item', type: t, nullable: true } });

interface Frame {
  schema: FieldDesc[];
  values: unknown[][]; // column-major JS values
}

function run(frame: Frame, inputs: Array<{ direct: string } | { name: string; type: TypeDesc; values: unknown[] }>, opts: { outputColumn?: string | string[]; ordinality?: string; ignore?: boolean } = {}) {
  const columns = frame.schema.map((c, i) => makeColumn(frame.values[i], c.type));
  const specs: ExplodeInputSpec[] = inputs.map((inp) => {
    if ('direct' in inp) {
      const columnIndex = frame.schema.findIndex((c) => c.name === inp.direct);
      return { direct: true, columnIndex, name: inp.direct, type: frame.schema[columnIndex].type };
    }
    return { direct: false, columnIndex: null, name: inp.name, type: inp.type };
  });
  const data = inputs.map((inp, i) => ('direct' in inp ? columns[specs[i].columnIndex as number] : makeColumn(inp.values, inp.type)));
  const spec = resolveExplode(specs, opts.outputColumn, opts.ordinality, opts.ignore ?? false, frame.schema);
  const out = explodeBatch(columns, data, spec, 0);
  return { spec, out, rows: out.map(readData) };
}

/** Output rows as objects keyed by output name (for readable expectations). */
function rowsOf(names: string[], cols: unknown[][]): Array<Record<string, unknown>> {
  const n = cols[0]?.length ?? 0;
  return Array.from({ length: n }, (_, r) => Object.fromEntries(names.map((nm, k) => [nm, cols[k][r]])));
}

const seed: Frame = {
  schema: [f('id', int32), f('items', listOf(utf8)), f('label', utf8), f('quantities', listOf(int32))],
  values: [[1], [['apple', 'pear']], ['A'], [[2, 3]]],
};

describe('explode batch: FLINK-40856 acceptance', () => {
  it('equal-length arrays explode positionally (seed example), direct columns keep their positions', () => {
    const { spec, rows } = run(seed, [{ direct: 'items' }, { direct: 'quantities' }], { outputColumn: ['item', 'quantity'] });
    expect(spec.schema.map((c) => c.name)).toEqual(['id', 'item', 'label', 'quantity']);
    expect(rowsOf(['id', 'item', 'label', 'quantity'], rows)).toEqual([
      { id: 1, item: 'apple', label: 'A', quantity: 2 },
      { id: 1, item: 'pear', label: 'A', quantity: 3 },
    ]);
  });

  for (const ignore of [false, true]) {
    it(`unequal lengths fail at execution time (ignoreEmptyAndNull=${ignore})`, () => {
      const frame: Frame = { ...seed, values: [[1, 2], [['a'], ['apple', 'pear']], ['A', 'B'], [[1], [2, 3, 4]]] };
      expect(() => run(frame, [{ direct: 'items' }, { direct: 'quantities' }], { ignore })).toThrow(
        'explode: row 1 has lists of different lengths: items=2, quantities=3',
      );
    });

    it(`mismatch where the driver array is empty or NULL (ignoreEmptyAndNull=${ignore})`, () => {
      for (const driver of [[], null]) {
        const frame: Frame = { ...seed, values: [[7], [driver], ['A'], [[5]]] };
        try {
          run(frame, [{ direct: 'items' }, { direct: 'quantities' }], { ignore });
          expect.unreachable();
        } catch (e) {
          expect(e).toBeInstanceOf(ExecutionError);
          expect((e as ExecutionError).code).toBe('EXPLODE_LENGTH_MISMATCH');
          expect((e as ExecutionError).message).toMatch(/row 0 .*items=0.*quantities=1/);
        }
      }
    });

    it(`empty and NULL arrays (ignoreEmptyAndNull=${ignore}), with ordinality`, () => {
      const frame: Frame = {
        ...seed,
        values: [
          [1, 2, 3, 4],
          [null, [], ['x', null], null],
          ['A', 'B', 'C', 'D'],
          [[], null, [null, 9], null],
        ],
      };
      const { rows } = run(frame, [{ direct: 'items' }, { direct: 'quantities' }], { ignore, ordinality: 'pos' });
      const all = rowsOf(['id', 'items', 'label', 'quantities', 'pos'], rows);
      const exploded = [
        { id: 3, items: 'x', label: 'C', quantities: null, pos: 1 },
        { id: 3, items: null, label: 'C', quantities: 9, pos: 2 },
      ];
      const nullRow = (id: number, label: string) => ({ id, items: null, label, quantities: null, pos: null });
      expect(all).toEqual(ignore ? exploded : [nullRow(1, 'A'), nullRow(2, 'B'), ...exploded, nullRow(4, 'D')]);
    });
  }

  it('computed outputs are appended and the columns they read stay', () => {
    const { spec, rows } = run(seed, [{ name: "split(label, ',')", type: listOf(utf8), values: [['p', 'q']] }, { direct: 'quantities' }]);
    expect(spec.schema.map((c) => c.name)).toEqual(['id', 'items', 'label', 'quantities', "split(label, ',')"]);
    expect(rows).toEqual([[1, 1], [['apple', 'pear'], ['apple', 'pear']], ['A', 'A'], [2, 3], ['p', 'q']]);
  });

  it('LIST<STRUCT> is not flattened; NULL struct elements stay NULL, distinct from all-NULL fields', () => {
    const frame: Frame = {
      schema: [f('id', int32), f('orders', listOf(structType))],
      values: [[1, 2], [[{ a: 1, s: 'x' }, null, { a: null, s: null }], null]],
    };
    const { spec, out, rows } = run(frame, [{ direct: 'orders' }], { outputColumn: 'order' });
    expect(spec.schema[1].type).toEqual(structType);
    expect(out).toHaveLength(2);
    expect(rows[1]).toEqual([{ a: 1, s: 'x' }, null, { a: null, s: null }, null]);
    expect(out[1].nullCount).toBe(2);
  });

  it('a MAP explodes to key and value columns', () => {
    const m = mapType(utf8, int32);
    const frame: Frame = { schema: [f('id', int32), f('attrs', m)], values: [[1, 2, 3], [new Map([['a', 1], ['b', null]]), null, new Map()]] };
    const { rows } = run(frame, [{ direct: 'attrs' }], { outputColumn: ['k', 'v'], ordinality: 'n' });
    expect(rows).toEqual([
      [1, 1, 2, 3],
      ['a', 'b', null, null],
      [1, null, null, null],
      [1, 2, null, null],
    ]);
  });

  it('fixed-size and large lists zip with lists', () => {
    const fixed: TypeDesc = { kind: 'fixedSizeList', size: 2, child: { name: 'item', type: int32, nullable: true } };
    const frame: Frame = {
      schema: [f('p', fixed), f('q', listOf(int64, 'largeList'))],
      values: [
        [[1, 2], null],
        [[10n, 20n], null],
      ],
    };
    const { rows } = run(frame, [{ direct: 'p' }, { direct: 'q' }]);
    expect(rows).toEqual([
      [1, 2, null],
      [10n, 20n, null],
    ]);
  });

  it('sliced fixed-size, large and map inputs read from the slice', () => {
    const fixedT: TypeDesc = { kind: 'fixedSizeList', size: 2, child: { name: 'item', type: int32, nullable: true } };
    const largeT = listOf(utf8, 'largeList');
    const fixed = makeColumn([[1, 2], [3, 4], null, [5, 6]], fixedT).slice(1, 3);
    const large = makeColumn([['z'], ['a', 'b'], null, ['c', null]], largeT).slice(1, 3);
    const schema = [f('p', fixedT), f('q', largeT)];
    const spec = resolveExplode(
      [
        { direct: true, columnIndex: 0, name: 'p', type: fixedT },
        { direct: true, columnIndex: 1, name: 'q', type: largeT },
      ],
      undefined,
      'pos',
      false,
      schema,
    );
    const out = explodeBatch([fixed, large], [fixed, large], spec, 0);
    expect(out.map(readData)).toEqual([
      [3, 4, null, 5, 6],
      ['a', 'b', null, 'c', null],
      [1, 2, null, 1, 2],
    ]);
    const m = mapType(utf8, int32);
    const map = makeColumn([new Map([['x', 0]]), new Map([['a', 1]]), null, new Map([['b', 2], ['c', 3]])], m).slice(1, 3);
    const mspec = resolveExplode([{ direct: true, columnIndex: 0, name: 'm', type: m }], ['k', 'v'], undefined, true, [f('m', m)]);
    expect(explodeBatch([map], [map], mspec, 0).map(readData)).toEqual([
      ['a', 'b', 'c'],
      [1, 2, 3],
    ]);
  });

  it('outputs are contiguous shared-memory columns', () => {
    const { out } = run(seed, [{ direct: 'items' }, { direct: 'quantities' }], { ordinality: 'pos' });
    for (const d of out) expect(checkLayout(d)).toEqual([]);
  });

  it('reports the global row number from rowBase', () => {
    const columns = [makeColumn([['a'], ['b', 'c']], listOf(utf8)), makeColumn([[1], [2]], listOf(int32))];
    const spec = resolveExplode(
      [
        { direct: true, columnIndex: 0, name: 'items', type: listOf(utf8) },
        { direct: true, columnIndex: 1, name: 'quantities', type: listOf(int32) },
      ],
      undefined,
      undefined,
      false,
      [f('items', listOf(utf8)), f('quantities', listOf(int32))],
    );
    expect(() => explodeBatch(columns, columns, spec, 1000)).toThrow('row 1001 ');
  });
});

// ---------------------------------------------------------------------------------------------
// differential: random frames, random direct/computed list inputs, sliced inputs, both modes

const elementCases: Array<{ type: TypeDesc; value: fc.Arbitrary<unknown> }> = [
  { type: utf8, value: fc.option(fc.string({ maxLength: 6 }), { nil: null }) },
  { type: int64, value: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }) },
  { type: structType, value: fc.option(fc.record({ a: fc.option(fc.integer({ min: -5, max: 5 }), { nil: null }), s: fc.option(fc.string({ maxLength: 3 }), { nil: null }) }), { nil: null }) },
  { type: listOf(int32), value: fc.option(fc.array(fc.option(fc.integer({ min: -9, max: 9 }), { nil: null }), { maxLength: 3 }), { nil: null }) },
];

const inputArb = (n: number) =>
  fc.record({
    el: fc.integer({ min: 0, max: elementCases.length - 1 }),
    large: fc.boolean(),
    direct: fc.boolean(),
    nulls: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    perturb: fc.array(fc.option(fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 4 })), { freq: 15, nil: null }), { minLength: n, maxLength: n }),
  });

const frameArb = fc.integer({ min: 0, max: 14 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    lens: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: n, maxLength: n }),
    ids: fc.array(fc.option(fc.integer({ min: -100, max: 100 }), { nil: null }), { minLength: n, maxLength: n }),
    labels: fc.array(fc.option(fc.string({ maxLength: 4 }), { nil: null }), { minLength: n, maxLength: n }),
    structs: fc.array(elementCases[2].value, { minLength: n, maxLength: n }),
    inputs: fc.array(inputArb(n), { minLength: 1, maxLength: 3 }),
    pool: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
    slice: fc.tuple(fc.nat(), fc.nat()),
    ignore: fc.boolean(),
    ordinality: fc.boolean(),
    rowBase: fc.nat({ max: 1e6 }),
  }),
);

describe('explode batch vs reference', () => {
  it('random frames (sliced), direct and computed inputs, both modes', () => {
    fc.assert(
      fc.property(frameArb, fc.infiniteStream(fc.nat()), (g, seeds) => {
        const { n } = g;
        const it = seeds[Symbol.iterator]();
        const schema: FieldDesc[] = [f('id', int32), f('label', utf8), f('s', structType)];
        const values: unknown[][] = [g.ids, g.labels, g.structs];
        const lists: unknown[][] = [];
        const specs: ExplodeInputSpec[] = [];
        const computedData: Array<{ type: TypeDesc; values: unknown[] }> = [];
        g.inputs.forEach((inp, i) => {
          const ec = elementCases[inp.el];
          const type = listOf(ec.type, inp.large ? 'largeList' : 'list');
          const sample = (): unknown => fc.sample(ec.value, { numRuns: 1, seed: it.next().value as number })[0];
          const js = g.lens.map((len, r) => {
            const p = inp.perturb[r];
            const l = p === null ? len : p;
            if (l === null || (l === 0 && inp.nulls[r])) return null;
            return Array.from({ length: l }, sample);
          });
          lists.push(js);
          const name = `in${i}`;
          if (inp.direct) {
            specs.push({ direct: true, columnIndex: schema.length, name, type });
            schema.push(f(name, type));
            values.push(js);
          } else {
            specs.push({ direct: false, columnIndex: null, name: `f(${name})`, type });
            computedData.push({ type, values: js });
          }
        });
        const spec = resolveExplode(specs, undefined, g.ordinality ? 'pos' : undefined, g.ignore, schema);

        const off = n === 0 ? 0 : g.slice[0] % (n + 1);
        const len = (n - off) === 0 ? 0 : g.slice[1] % (n - off + 1);
        const columns = schema.map((c, k) => makeColumn(values[k], c.type).slice(off, len));
        let ci = 0;
        const inputs: Data[] = specs.map((s) => (s.direct ? columns[s.columnIndex as number] : (() => {
          const c = computedData[ci++];
          return makeColumn(c.values, c.type).slice(off, len);
        })()));

        const jsCols = values.map((v, k) => v.slice(off, off + len).map((x) => normalize(x, schema[k].type)));
        const jsLists = lists.map((l, i) => l.slice(off, off + len).map((x) => normalize(x, specs[i].type) as unknown[] | null));
        let expected: unknown[][] | ReferenceMismatch;
        try {
          expected = referenceExplode(jsCols, jsLists, spec, g.rowBase);
        } catch (e) {
          if (!(e instanceof ReferenceMismatch)) throw e;
          expected = e;
        }
        if (expected instanceof ReferenceMismatch) {
          expect(() => explodeBatch(columns, inputs, spec, g.rowBase)).toThrow(`row ${expected.row} `);
          return;
        }
        const out = explodeBatch(columns, inputs, spec, g.rowBase);
        expect(out).toHaveLength(spec.schema.length);
        for (const d of out) expect(checkLayout(d)).toEqual([]);
        expect(out.map(readData)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});
