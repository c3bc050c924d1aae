/**
 * RANGE frames over 64-bit and decimal128 order keys whose span defeats exact doubles (> 2^50):
 * the exact word path of src/ops/window-frames (no BigInt per row) against the reference, at
 * the int64/uint64 extremes, with offsets up to 2^63-1 (bounds k ± offset that would overflow
 * 64 bits), NULL keys, duplicates, descending order and partitions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldDesc, TypeDesc } from '../../src/types/column.js';
import { engineOptions, refOptions, W } from '../support/window-fns.js';
import { runKernelOnRows } from '../support/window-harness.js';
import { compareWindowResults, type RefRow } from '../support/window-reference.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const I32: TypeDesc = { kind: 'int', bits: 32, signed: true };

function schemaOf(key: TypeDesc): FieldDesc[] {
  return [
    { name: 'g', type: I32, nullable: false },
    { name: 'k', type: key, nullable: true },
    { name: 'v', type: I32, nullable: true },
  ];
}

/** Keys near the extremes and each other, with NULLs and duplicates; always spanning > 2^50. */
function keysArb(lo: bigint, hi: bigint): fc.Arbitrary<(bigint | null)[]> {
  const near = (x: bigint) => fc.bigInt({ min: -3n, max: 3n }).map((d) => (x + d < lo ? lo : x + d > hi ? hi : x + d));
  const key = fc.oneof(
    near(lo),
    near(hi),
    near((lo + hi) / 2n),
    fc.bigInt({ min: lo, max: hi }),
    fc.bigInt({ min: -(2n ** 51n), max: 2n ** 51n }).map((d) => { const x = (lo + hi) / 2n + d; return x < lo ? lo : x > hi ? hi : x; }),
  );
  return fc.array(fc.option(key, { freq: 8, nil: null }), { minLength: 1, maxLength: 40 }).map((ks) => [lo, hi, ...ks]);
}

const offsetArb = fc.oneof(
  fc.constantFrom<bigint | 'unbounded'>(0n, 1n, 3n, 2n ** 50n, 2n ** 52n + 1n, 2n ** 62n, I64_MAX, 'unbounded'),
  fc.bigInt({ min: 0n, max: I64_MAX }),
);

function check(key: TypeDesc, lo: bigint, hi: bigint, runs: number): void {
  const schema = schemaOf(key);
  fc.assert(
    fc.property(keysArb(lo, hi), offsetArb, offsetArb, fc.boolean(), fc.boolean(), (keys, p, f, desc, parts) => {
      const rows: RefRow[] = keys.map((k, i) => ({ g: parts ? i % 2 : 0, k, v: i % 5 === 4 ? null : i }));
      const opts = {
        ...(parts ? { partitionBy: 'g' } : {}),
        orderBy: [{ column: 'k', descending: desc }],
        columns: { c: W.count().range(p, f), s: W.sum('v').range(p, f), m: W.min('v').range(p, f) },
      };
      const { values } = runKernelOnRows(rows, schema, engineOptions(opts));
      expect(compareWindowResults(values, rows, schema, refOptions(opts))).toEqual([]);
    }),
    { numRuns: runs },
  );
}

describe('RANGE frames over wide keys', () => {
  it('int64 keys across the whole range, offsets up to 2^63-1', () => check({ kind: 'int', bits: 64, signed: true }, I64_MIN, I64_MAX, 300));
  it('uint64 keys up to 2^64-1', () => check({ kind: 'int', bits: 64, signed: false }, 0n, U64_MAX, 200));
  it('ns timestamps a year apart (> 2^50 ns)', () => check({ kind: 'timestamp', unit: 'ns', timezone: null }, 1_700_000_000_000_000_000n, 1_731_536_000_000_000_000n, 200));
  it('decimal128 keys beyond 2^64 unscaled', () => check({ kind: 'decimal', precision: 38, scale: 2 }, -(10n ** 37n), 10n ** 37n, 200));

  it('bounds that overflow int64 clamp to the partition (no wrap)', () => {
    const schema = schemaOf({ kind: 'int', bits: 64, signed: true });
    const rows: RefRow[] = [I64_MIN, I64_MIN + 1n, -1n, 0n, I64_MAX - 1n, I64_MAX].map((k, i) => ({ g: 0, k, v: i }));
    const opts = { orderBy: 'k', columns: { c: W.count().range(I64_MAX, 0n), d: W.count().range(0n, I64_MAX), e: W.count().range(1n, 1n) } };
    const { values } = runKernelOnRows(rows, schema, engineOptions(opts));
    expect(values.c).toEqual([1n, 2n, 3n, 3n, 3n, 3n]); // at 0 the frame starts at -MAX = MIN+1, not wrapped
    expect(values.d).toEqual([3n, 3n, 3n, 3n, 2n, 1n]); // at MIN it ends at MIN+MAX = -1
    expect(values.e).toEqual([2n, 2n, 2n, 2n, 2n, 2n]);
    expect(compareWindowResults(values, rows, schema, refOptions(opts))).toEqual([]);
  });
});
