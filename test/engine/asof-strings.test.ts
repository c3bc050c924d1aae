/** asofJoin on STRING keys (backward/forward) through the engine: UTF-8 byte order, vs the reference. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc } from '../../src/types/column.js';
import { referenceAsof } from '../support/asof-reference.js';
import { enginePool, SETTINGS } from '../support/engines.js';
import { columnValues, makeTable, rowsOf, type JsValue } from '../support/tables.js';

const engineFor = enginePool();
const left: FieldDesc[] = [
  { name: 'g', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  { name: 'k', type: { kind: 'utf8' }, nullable: true },
];
const right: FieldDesc[] = [
  { name: 'g', type: { kind: 'int', bits: 32, signed: true }, nullable: true },
  { name: 'k', type: { kind: 'utf8' }, nullable: true },
  { name: 'v', type: { kind: 'int', bits: 32, signed: false }, nullable: false },
];
// '\uFFFD' sorts before '\u{1F600}' in UTF-8 bytes but after it in UTF-16 code units.
const key = fc.constantFrom<JsValue>('', 'a', 'ab', 'b', '10', '2', 'é', '\uFFFD', '\u{1F600}', null);

describe('asofJoin on string keys', () => {
  it('matches the reference in UTF-8 byte order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom<JsValue>(1, 2, null), key), { maxLength: 40 }),
        fc.array(fc.tuple(fc.constantFrom<JsValue>(1, 2, null), key), { maxLength: 40 }),
        fc.constantFrom('backward', 'forward') as fc.Arbitrary<'backward' | 'forward'>,
        fc.boolean(),
        fc.constantFrom(...SETTINGS),
        async (l, r, direction, allowExactMatches, s) => {
          const lc = { g: l.map((x) => x[0]), k: l.map((x) => x[1]) };
          const rc = { g: r.map((x) => x[0]), k: r.map((x) => x[1]), v: r.map((_, i) => i) };
          const opts = { on: 'k', by: 'g', direction, allowExactMatches };
          const e = engineFor(s);
          const out = await e.fromArrow(makeTable(left, lc, 7)).asofJoin(e.fromArrow(makeTable(right, rc, 5)), opts).collect();
          const match = referenceAsof(rowsOf(left, lc), rowsOf(right, rc), left, right, opts);
          expect(columnValues(out, 'v')).toEqual(match.map((m) => (m === null ? null : rc.v[m]!)));
        },
      ),
      { numRuns: 60 },
    );
  });
});
