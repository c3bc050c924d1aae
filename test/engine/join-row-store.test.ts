/**
 * The broadcast join's row store (src/ops/join-row-store: the right payload stored by key, for
 * an inner or left join on one int key whose right values are unique and dense) against the
 * naive nested-loop reference (test/support/relational-reference): payload columns of every
 * width it stores (int8 to int64 and uint64, float32/64 with NaN and -0, date32, timestamp) and
 * strings of 0 to 300 bytes (the line keeps 12 in place; 255 and more take their length from
 * the offsets), with NULLs; left keys with NULLs, misses on both sides of the span and values far outside it.
 * Right keys are unique but now and then one repeats, or is NULL with nullsEqual (then the
 * join builds its table): the rows must be the same either way, at every setting; and which
 * way ran is read from RunStats.cpuMs (joinRowStore, or joinBuild).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc } from '../../src/types/column.js';
import { BATCH_SIZES, enginePool, SETTINGS } from '../support/engines.js';
import { rowsOfTable, tableOf } from '../support/relational-data.js';
import { refJoin, type Row } from '../support/relational-reference.js';

const engineFor = enginePool();

const LEFT: FieldDesc[] = [
  { name: 'id', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
  { name: 'k', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
];

const RIGHT: FieldDesc[] = [
  { name: 'k', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'i8', type: { kind: 'int', bits: 8, signed: true }, nullable: true },
  { name: 'i16', type: { kind: 'int', bits: 16, signed: true }, nullable: true },
  { name: 'u32', type: { kind: 'int', bits: 32, signed: false }, nullable: true },
  { name: 'u64', type: { kind: 'int', bits: 64, signed: false }, nullable: true },
  { name: 'f32', type: { kind: 'float', bits: 32 }, nullable: true },
  { name: 'f64', type: { kind: 'float', bits: 64 }, nullable: true },
  { name: 'd', type: { kind: 'date', unit: 'day' }, nullable: true },
  { name: 'ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
  { name: 's', type: { kind: 'utf8' }, nullable: true },
  { name: 'bin', type: { kind: 'binary' }, nullable: true },
];

const nul = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ weight: 5, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) });

/** Strings around the line's 12 bytes in place and the length byte's 255. */
const text = fc.oneof(
  fc.constantFrom('', 'a', 'é', '\u{1F600}', 'abcdefghijkl', 'abcdefghijklm'),
  fc.integer({ min: 0, max: 300 }).map((n) => 'x'.repeat(n)),
);

const payload = {
  i8: nul(fc.integer({ min: -128, max: 127 })),
  i16: nul(fc.integer({ min: -32768, max: 32767 })),
  u32: nul(fc.constantFrom(0, 1, 4294967295)),
  u64: nul(fc.constantFrom(0n, 1n, (1n << 64n) - 1n, 1n << 63n)),
  f32: nul(fc.constantFrom(0, -0, 0.5, NaN, -Infinity)),
  f64: nul(fc.constantFrom(0, -0, 1e300, NaN, Infinity, -1.5)),
  d: nul(fc.integer({ min: -3, max: 3 })),
  ts: nul(fc.bigInt({ min: -(1n << 62n), max: 1n << 62n })),
  s: nul(text),
  bin: nul(fc.uint8Array({ maxLength: 20 })),
};

/** Unique keys, n of them within 1.5 n values (the store takes spans up to twice the rows). */
const uniqueKeys: fc.Arbitrary<number[]> = fc
  .integer({ min: 0, max: 40 })
  .chain((n) => fc.shuffledSubarray(Array.from({ length: Math.ceil(1.5 * n) + 1 }, (_, i) => i - 5), { minLength: n, maxLength: n }));

/** Right rows: unique keys of a dense range (so the table is direct), sometimes one twice or NULL. */
const rightRows: fc.Arbitrary<Row[]> = fc
  .tuple(uniqueKeys, fc.array(fc.record(payload), { minLength: 41, maxLength: 41 }), fc.constantFrom('unique', 'unique', 'repeat', 'null'))
  .map(([keys, rows, twist]) => {
    const out: Row[] = keys.map((k, i) => ({ k: BigInt(k), ...rows[i]! }) as Row);
    if (twist === 'repeat' && keys.length > 0) out.push({ ...rows[40]!, k: BigInt(keys[0]!) } as Row);
    if (twist === 'null') out.push({ ...rows[40]!, k: null } as Row);
    return out;
  });

const leftRows: fc.Arbitrary<Row[]> = fc.array(
  fc.record({
    id: fc.integer({ min: 0, max: 1000 }),
    k: nul(fc.oneof({ weight: 8, arbitrary: fc.integer({ min: -8, max: 60 }).map(BigInt) }, { weight: 1, arbitrary: fc.constantFrom(-(1n << 62n), 1n << 62n, (1n << 63n) - 1n) })),
  }) as fc.Arbitrary<Row>,
  { maxLength: 60 },
);

function expected(left: Row[], right: Row[], how: 'inner' | 'left', nullsEqual: boolean): Row[] {
  const kept = RIGHT.map((f) => f.name).filter((n) => n !== 'k');
  return refJoin(left, right, [['k', 'k']], LEFT, RIGHT, how, nullsEqual).map(([li, rj]) => {
    const row: Row = { id: left[li!]!.id!, k: left[li!]!.k! };
    for (const n of kept) row[n] = rj === null ? null : right[rj]![n]!;
    return row;
  });
}

describe('broadcast join through the row store vs the naive reference', () => {
  it('inner and left joins on a unique int key give the reference rows, identical across settings', async () => {
    await fc.assert(
      fc.asyncProperty(
        leftRows,
        rightRows,
        fc.constantFrom<'inner' | 'left'>('inner', 'left'),
        fc.boolean(),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...SETTINGS),
        fc.constantFrom(...BATCH_SIZES),
        async (left, right, how, nullsEqual, s1, s2, batch) => {
          const run = async (s: (typeof SETTINGS)[number]) => {
            const e = engineFor(s);
            return rowsOfTable(await e.fromArrow(tableOf(left, batch, LEFT)).join(e.fromArrow(tableOf(right, batch, RIGHT)), { on: 'k', how, nullsEqual }).collect());
          };
          const got = await run(s1);
          expect(got).toEqual(expected(left, right, how, nullsEqual));
          expect(await run(s2)).toEqual(got);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('which way the broadcast join finds its right rows', () => {
  const e = engineFor({ threads: 2, partitions: 7 });
  const left = Array.from({ length: 300 }, (_, i) => ({ id: i, k: BigInt(i % 130) }) as Row);
  const rightOf = (keys: number[]): Row[] => keys.map((k) => ({ k: BigInt(k), i8: k % 100, i16: null, u32: 1, u64: 2n, f32: 0.5, f64: -0, d: 3, ts: 4n, s: `v${k}`, bin: null }) as Row);
  const run = async (right: Row[], nullsEqual = false) => e.fromArrow(tableOf(left, 64, LEFT)).join(e.fromArrow(tableOf(right, 64, RIGHT)), { on: 'k', how: 'left', nullsEqual }).execute();

  it('unique dense keys: the row store, filled by both threads, no table', async () => {
    const right = rightOf(Array.from({ length: 100 }, (_, i) => (i * 37) % 100));
    const { table, stats } = await run(right);
    expect(stats.cpuMs.joinRowStore).toBeGreaterThan(0);
    expect(stats.cpuMs.joinBuild).toBeUndefined();
    expect(rowsOfTable(table)).toEqual(expected(left, right, 'left', false));
  });

  it('a key of two rows, or NULL keys that match: the table, same rows as the reference', async () => {
    const twice = rightOf([...Array.from({ length: 100 }, (_, i) => i), 42]);
    const a = await run(twice);
    expect(a.stats.cpuMs.joinBuild).toBeGreaterThan(0);
    expect(rowsOfTable(a.table)).toEqual(expected(left, twice, 'left', false));
    const withNull = [...rightOf(Array.from({ length: 100 }, (_, i) => i)), { ...rightOf([0])[0]!, k: null } as Row];
    const b = await run(withNull, true);
    expect(b.stats.cpuMs.joinBuild).toBeGreaterThan(0);
    expect(rowsOfTable(b.table)).toEqual(expected(left, withNull, 'left', true));
  });
});
