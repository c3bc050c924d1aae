import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { explodeIndices } from '../../src/ops/explode.js';
import type { ExplodeListInput } from '../../src/ops/explode.js';
import { ExecutionError } from '../../src/errors.js';
import { ReferenceMismatch, referenceExplode } from '../support/explode-reference.js';
import type { ExplodeSource } from '../../src/ops/explode-spec.js';

type Kind = 'list' | 'largeList' | 'fixedSizeList';

/**
 * Kernel inputs from JS lists whose elements are their own absolute child positions, so the
 * reference's exploded values ARE the expected child indices.
 */
function kernelList(kind: Kind, lengths: Array<number | null>, base: number, size = 0): { input: ExplodeListInput; js: Array<number[] | null> } {
  const n = lengths.length;
  const valid = new Uint8Array(n);
  const js: Array<number[] | null> = [];
  let hasNull = false;
  if (kind === 'fixedSizeList') {
    lengths.forEach((l, r) => {
      valid[r] = l === null ? 0 : 1;
      hasNull ||= l === null;
      js.push(l === null ? null : Array.from({ length: size }, (_, k) => r * size + k));
    });
    return { input: { kind, size, valid: hasNull ? valid : null, n }, js };
  }
  const offs = new Float64Array(n + 1);
  offs[0] = base;
  lengths.forEach((l, r) => {
    valid[r] = l === null ? 0 : 1;
    hasNull ||= l === null;
    // a NULL list may still own elements in the child (allowed by Arrow): give it some
    const len = l === null ? r % 2 : l;
    offs[r + 1] = offs[r] + len;
    js.push(l === null ? null : Array.from({ length: len }, (_, k) => offs[r] + k));
  });
  const offsets = kind === 'largeList' ? BigInt64Array.from(offs, (x) => BigInt(x)) : Int32Array.from(offs);
  return { input: { kind, offsets, valid: hasNull ? valid : null, n }, js };
}

function runBoth(lists: Array<{ input: ExplodeListInput; js: Array<number[] | null> }>, ignore: boolean, rowBase: number) {
  const n = lists[0].js.length;
  const sources: ExplodeSource[] = [{ kind: 'column', column: 0 }, ...lists.map((_, i) => ({ kind: 'element' as const, input: i })), { kind: 'ordinality' }];
  const names = lists.map((_, i) => `in${i}`);
  let expected: unknown[][] | ReferenceMismatch;
  try {
    expected = referenceExplode([Array.from({ length: n }, (_, r) => r)], lists.map((l) => l.js), { sources, ignoreEmptyAndNull: ignore }, rowBase);
  } catch (e) {
    if (!(e instanceof ReferenceMismatch)) throw e;
    expected = e;
  }
  let actual: ReturnType<typeof explodeIndices> | ExecutionError;
  try {
    actual = explodeIndices({ lists: lists.map((l) => l.input), names, ignoreEmptyAndNull: ignore, rowBase });
  } catch (e) {
    if (!(e instanceof ExecutionError)) throw e;
    actual = e;
  }
  return { expected, actual, names };
}

// per row: a shared length, and per input whether an empty row is NULL or [] ; sometimes a perturbation
const rowsArb = (k: number) =>
  fc.array(
    fc.record({
      len: fc.integer({ min: 0, max: 4 }),
      nulls: fc.array(fc.boolean(), { minLength: k, maxLength: k }),
      perturb: fc.option(fc.record({ input: fc.integer({ min: 0, max: k - 1 }), to: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 5 })) }), {
        freq: 12,
        nil: null,
      }),
    }),
    { maxLength: 25 },
  );

describe('explode kernel vs reference', () => {
  it('lists and large lists, both modes, mismatches included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }).chain((k) =>
          fc.record({
            k: fc.constant(k),
            rows: rowsArb(k),
            kinds: fc.array(fc.constantFrom<Kind>('list', 'largeList'), { minLength: k, maxLength: k }),
            bases: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: k, maxLength: k }),
            ignore: fc.boolean(),
            rowBase: fc.integer({ min: 0, max: 1e9 }),
          }),
        ),
        ({ k, rows, kinds, bases, ignore, rowBase }) => {
          const lists = Array.from({ length: k }, (_, i) =>
            kernelList(
              kinds[i],
              rows.map((row) => {
                const p = row.perturb !== null && row.perturb.input === i ? row.perturb.to : undefined;
                if (p !== undefined) return p;
                return row.len === 0 && row.nulls[i] ? null : row.len;
              }),
              bases[i],
            ),
          );
          const { expected, actual, names } = runBoth(lists, ignore, rowBase);
          if (expected instanceof ReferenceMismatch) {
            expect(actual).toBeInstanceOf(ExecutionError);
            const err = actual as ExecutionError;
            expect(err.code).toBe('EXPLODE_LENGTH_MISMATCH');
            expect(err.details.row).toBe(expected.row);
            expect(err.message).toContain(`row ${expected.row} `);
            for (const nm of names) expect(err.message).toContain(`${nm}=`);
            return;
          }
          expect(actual).not.toBeInstanceOf(Error);
          const got = actual as ReturnType<typeof explodeIndices>;
          expect(Array.from(got.parent)).toEqual(expected[0]);
          lists.forEach((_, i) => expect(Array.from(got.child[i])).toEqual(expected[1 + i].map((v) => (v === null ? -1 : v))));
          expect(Array.from(got.ordinality as Int32Array)).toEqual(expected[k + 1].map((v) => (v === null ? 0 : v)));
          expect(got.length).toBe(expected[0].length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('fixed-size lists pair with lists of the same length; NULL fixed-size lists are length 0', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { maxLength: 20 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        (nullRows, size, ignore) => {
          const fsl = kernelList('fixedSizeList', nullRows.map((isNull) => (isNull ? null : size)), 0, size);
          const lst = kernelList('list', nullRows.map((isNull) => (isNull || size === 0 ? null : size)), 7);
          const { expected, actual } = runBoth([fsl, lst], ignore, 0);
          expect(expected).not.toBeInstanceOf(ReferenceMismatch);
          const got = actual as ReturnType<typeof explodeIndices>;
          expect(Array.from(got.parent)).toEqual((expected as unknown[][])[0]);
          expect(Array.from(got.child[0])).toEqual((expected as unknown[][])[1].map((v) => (v === null ? -1 : v)));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('explode kernel: length validation (FLINK-40856)', () => {
  const two = (a: Array<number | null>, b: Array<number | null>, ignore: boolean) => {
    const x = kernelList('list', a, 0);
    const y = kernelList('list', b, 3);
    return () => explodeIndices({ lists: [x.input, y.input], names: ['items', 'quantities'], ignoreEmptyAndNull: ignore, rowBase: 40 });
  };

  for (const ignore of [false, true]) {
    it(`unequal lengths fail (ignoreEmptyAndNull=${ignore}) with the row, names and lengths`, () => {
      expect(two([1, 2], [1, 3], ignore)).toThrow('explode: row 41 has lists of different lengths: items=2, quantities=3');
    });
    it(`the driver (first) list empty while another is not fails (ignoreEmptyAndNull=${ignore})`, () => {
      expect(two([0], [2], ignore)).toThrow(/row 40 .*items=0, quantities=2/);
    });
    it(`the driver (first) list NULL while another is not fails (ignoreEmptyAndNull=${ignore})`, () => {
      expect(two([null], [1], ignore)).toThrow(/row 40 .*items=0 \(NULL\), quantities=1/);
    });
    it(`a later mismatch fails before any output (ignoreEmptyAndNull=${ignore})`, () => {
      expect(two([2, 0, 0, 1], [2, null, 0, 2], ignore)).toThrow(/row 43 /);
    });
  }

  it('error is an ExecutionError with code and details', () => {
    try {
      two([3], [null], true)();
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ExecutionError);
      expect((e as ExecutionError).code).toBe('EXPLODE_LENGTH_MISMATCH');
      expect((e as ExecutionError).details).toMatchObject({ row: 40, lengths: { items: 3, quantities: null } });
    }
  });

  it('empty and NULL mixed rows: one NULL row each, or none when ignoring', () => {
    const keep = two([null, 0, 2], [0, null, 2], false)();
    expect(Array.from(keep.parent)).toEqual([0, 1, 2, 2]);
    expect(Array.from(keep.child[0])).toEqual([-1, -1, 0, 1]);
    // row 1's NULL list owns one child element (position 3), which is skipped
    expect(Array.from(keep.child[1])).toEqual([-1, -1, 4, 5]);
    expect(Array.from(keep.ordinality as Int32Array)).toEqual([0, 0, 1, 2]);
    const drop = two([null, 0, 2], [0, null, 2], true)();
    expect(Array.from(drop.parent)).toEqual([2, 2]);
    expect(Array.from(drop.child[1])).toEqual([4, 5]);
  });
});
