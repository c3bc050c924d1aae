// The broadcast join table (src/worker/join-table): every probe row's build rows, in build
// order, equal a naive Map's, for int64 and int32 keys that are dense (the direct layout) or
// spread (hashed), with NULLs (nullsEqual on and off), duplicates, negative keys and probe keys
// far outside the build range (high words beyond the direct layout's bound); and for string
// keys in the str layout (bytes in the slot) and the generic one, around the 12 inline bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KeyColumn } from '../../src/types/keys.js';
import { naive, strings, viaTable } from '../support/join-table-probe.js';

function column(vals: Array<bigint | null>, wide: boolean): KeyColumn {
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  const values = wide ? BigInt64Array.from(vals, (v) => v ?? 5n) : Int32Array.from(vals, (v) => Number(v ?? 5n));
  return { type: { kind: 'int', bits: wide ? 64 : 32, signed: true }, length: vals.length, values, offsets: null, valid };
}

const far = [2n ** 62n, -(2n ** 62n), 2n ** 52n + 3n, -(2n ** 53n), 2n ** 32n * 1048576n];

describe('join table', () => {
  for (const wide of [true, false]) {
    it(`${wide ? 'int64' : 'int32'} keys, dense and spread: the naive build rows per probe row`, () => {
      const seen = { direct: 0, hashed: 0 };
      fc.assert(
        fc.property(
          fc.integer({ min: -50, max: 50 }),
          fc.constantFrom(1, 3, 1000, 2 ** 20),
          fc.array(fc.option(fc.integer({ min: 0, max: 60 }), { freq: 8 }), { maxLength: 300 }),
          fc.array(fc.option(fc.integer({ min: -5, max: 70 }), { freq: 8 }), { maxLength: 300 }),
          fc.array(fc.nat(far.length - 1), { maxLength: 5 }),
          fc.boolean(),
          (base, spread, b, p, farAt, nullsEqual) => {
            const key = (x: number | null): bigint | null => (x === null ? null : BigInt(base + x * spread));
            const build = b.map(key);
            const probe = [...p.map(key), ...(wide ? farAt.map((i) => far[i]!) : [])];
            const got = viaTable(column(build, wide), column(probe, wide), nullsEqual);
            seen[got.direct ? 'direct' : 'hashed']++;
            expect(got.rows).toEqual(naive(build, probe, nullsEqual));
          },
        ),
        { numRuns: 300 },
      );
      expect(seen.direct).toBeGreaterThan(0);
      expect(seen.hashed).toBeGreaterThan(0);
    });
  }

  it('uint32 keys at and above 2^31 against int32 and int8 keys (hashed and direct): by value, not by their bits', () => {
    const u32 = (vals: Array<number | null>): KeyColumn => ({
      type: { kind: 'int', bits: 32, signed: false },
      length: vals.length,
      values: Uint32Array.from(vals, (v) => v ?? 0),
      offsets: null,
      valid: vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null,
    });
    const i32 = (vals: number[]): KeyColumn => ({ type: { kind: 'int', bits: 32, signed: true }, length: vals.length, values: Int32Array.from(vals), offsets: null, valid: null });
    const i8 = (vals: number[]): KeyColumn => ({ type: { kind: 'int', bits: 8, signed: true }, length: vals.length, values: Int8Array.from(vals), offsets: null, valid: null });
    // 3000000000 and -1294967296 share their 32 bits, as 4294967295 and -1 do.
    const build = [3000000000, 5, 4294967295, null, 2147483648, 7];
    const probe = [-1294967296, 5, -1, 3, 7, -2147483648];
    const want = probe.map((p) => build.flatMap((b, j) => (b === p ? [j] : [])));
    expect(viaTable(u32(build), i32(probe), false).rows).toEqual(want);
    expect(viaTable(u32([255, 5, 4294967295]), i8([-1, 5, 127]), false).rows).toEqual([[], [1], []]);
    // both sides unsigned, and the dense (direct) layout of small keys with one big one apart
    expect(viaTable(u32(build), u32([3000000000, 4294967295, 1]), false).rows).toEqual([[0], [2], []]);
    expect(viaTable(u32([1, 2, 3, 2]), i32([2, -4294967294 | 0, 3]), true).rows).toEqual([[1, 3], [1, 3], [2]]);
  });

  for (const layout of ['str', 'generic'] as const) {
    it(`string keys (${layout} layout): the naive build rows per probe row, around the 12 bytes kept in the slot`, () => {
      // Keys share long prefixes and lengths, so slots agree on the first 12 bytes and differ after.
      const stems = ['', 'a', 'abcdefghijk', 'abcdefghijkl', 'abcdefghijklm', 'é€𝄞', 'k00586284'];
      const key = fc.tuple(fc.nat(stems.length - 1), fc.constantFrom('', 'x', 'y', 'xy', 'yx', '0123456789ab', '\u0000'));
      const text = ([s, t]: [number, string]): string => stems[s]! + t;
      fc.assert(
        fc.property(fc.array(fc.option(key, { freq: 8 }), { maxLength: 200 }), fc.array(fc.option(key, { freq: 8 }), { maxLength: 200 }), fc.boolean(), (b, p, nullsEqual) => {
          const build = b.map((k) => (k === null ? null : text(k)));
          const probe = p.map((k) => (k === null ? null : text(k)));
          expect(viaTable(strings(build), strings(probe), nullsEqual, layout).rows).toEqual(naive(build, probe, nullsEqual));
        }),
        { numRuns: 300 },
      );
    });
  }
});
