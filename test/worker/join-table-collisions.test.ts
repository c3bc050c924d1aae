// The join table's key comparisons alone: every hash is the same here (shuffle/hash mocked), so
// each probe compares with every slot on its path, and only the str layout's byte length, its
// 12 bytes in the slot and the bytes after them (or the generic layout's rowsEqual) tell keys
// apart. Build rows per probe row must still equal a naive Map's.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { naive, strings, viaTable } from '../support/join-table-probe.js';

vi.mock('../../src/shuffle/hash.js', async (original) => ({
  ...(await original<typeof import('../../src/shuffle/hash.js')>()),
  hashColumns: (_columns: unknown, n: number, _seed: number, out: Uint32Array) => out.fill(0x5bd1e995, 0, n),
}));

describe('join table under colliding hashes', () => {
  for (const layout of ['str', 'generic'] as const) {
    it(`string keys (${layout} layout) that share prefixes, lengths and hashes`, () => {
      const key = fc.tuple(fc.constantFrom('', 'abcdefghijk', 'abcdefghijkl', 'abcdefghijklmnop'), fc.constantFrom('', 'x', 'y', 'xy', 'yx', '\u0000'));
      fc.assert(
        fc.property(fc.array(fc.option(key, { freq: 8 }), { maxLength: 60 }), fc.array(fc.option(key, { freq: 8 }), { maxLength: 60 }), fc.boolean(), (b, p, nullsEqual) => {
          const build = b.map((k) => (k === null ? null : k[0] + k[1]));
          const probe = p.map((k) => (k === null ? null : k[0] + k[1]));
          expect(viaTable(strings(build), strings(probe), nullsEqual, layout).rows).toEqual(naive(build, probe, nullsEqual));
        }),
        { numRuns: 200 },
      );
    });
  }
});
