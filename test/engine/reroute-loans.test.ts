/**
 * A partition split again from an exchange that kept its chunks in memory: route tasks that
 * take several chunks copy them into their scratch, which their loan must count (issue 8:
 * every byte a named reservation; a reviewer found the loan sized for one chunk an input).
 */
import { describe, expect, it } from 'vitest';
import { sum } from '../../src/index.js';
import type { FieldDesc } from '../../src/types/column.js';
import { budgetEngines } from '../support/engines.js';
import { rng } from '../support/random.js';
import { makeTable, valuesDigest, type JsValue } from '../support/tables.js';

const engine = budgetEngines();

const SCHEMA: FieldDesc[] = [
  { name: 'k', type: { kind: 'int', bits: 32, signed: true }, nullable: false },
  { name: 't', type: { kind: 'int', bits: 64, signed: true }, nullable: false },
  { name: 'v', type: { kind: 'float', bits: 64 }, nullable: true },
];

describe('second routing of chunks kept in memory', () => {
  it.each(['8MiB', '16MiB', '32MiB'])('one hot key at %s: route tasks stay within their loans, same result as unbounded', async (budget) => {
    const n = 150_000;
    const r = rng(7);
    const cols: Record<string, JsValue[]> = {
      k: Array.from({ length: n }, () => (r() < 0.97 ? 1 : Math.floor(r() * 4))),
      t: Array.from({ length: n }, () => BigInt(Math.floor(r() * n))),
      v: Array.from({ length: n }, () => (r() < 0.05 ? null : r() * 100)),
    };
    const go = (threads: number, memoryBudget: string) =>
      engine(threads, memoryBudget)
        .fromArrow(makeTable(SCHEMA, cols, 2048))
        .window({ partitionBy: 'k', orderBy: 't', columns: { s: sum('v').rows(3) } })
        .execute();
    const base = await go(1, '1GiB');
    const small = await go(2, budget);
    expect(valuesDigest(small.table)).toBe(valuesDigest(base.table));
    expect(small.stats.overflowBytes).toBe(0);
  });
});
