// The broadcast join table (src/worker/join-table): every probe row's build rows, in build
// order, equal a naive Map's, for int64 and int32 keys that are dense (the direct layout) or
// spread (hashed), with NULLs (nullsEqual on and off), duplicates, negative keys and probe keys
// far outside the build range (high words beyond the direct layout's bound).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinTableSlots } from '../../src/ops/join-table-layout.js';
import type { KeyColumn } from '../../src/types/keys.js';
import { buildJoinTable, probeJoinTable } from '../../src/worker/join-table.js';

function column(vals: Array<bigint | null>, wide: boolean): KeyColumn {
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  const values = wide ? BigInt64Array.from(vals, (v) => v ?? 5n) : Int32Array.from(vals, (v) => Number(v ?? 5n));
  return { type: { kind: 'int', bits: wide ? 64 : 32, signed: true }, length: vals.length, values, offsets: null, valid };
}

/** Per probe row: its build rows in build order, through the table. */
function viaTable(build: KeyColumn, probe: KeyColumn, nullsEqual: boolean): { rows: number[][]; direct: boolean } {
  const n = build.length;
  const slots = new Int32Array(4 * joinTableSlots(n));
  const order = new Uint32Array(n);
  const built = buildJoinTable([build], n, nullsEqual, true, { slots, order }, new Int32Array(n), new Uint32Array(n));
  const np = probe.length;
  const run = new Int32Array(np);
  const len = new Int32Array(np);
  probeJoinTable([build], { slots, int: true, ...built }, [probe], np, nullsEqual, null, run, len, new Uint32Array(np));
  const rows = Array.from({ length: np }, (_, i) => (len[i] === 1 ? [run[i]!] : Array.from(order.subarray(run[i]!, run[i]! + len[i]!))));
  return { rows, direct: built.directSpan > 0 };
}

function naive(build: Array<bigint | null>, probe: Array<bigint | null>, nullsEqual: boolean): number[][] {
  const by = new Map<string, number[]>();
  build.forEach((v, j) => {
    if (v === null && !nullsEqual) return;
    const k = String(v);
    by.set(k, [...(by.get(k) ?? []), j]);
  });
  return probe.map((v) => (v === null && !nullsEqual ? [] : (by.get(String(v)) ?? [])));
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
});
