/** explain() names partitioning, sort keys and algorithms; schema() plans without running. */
import { describe, expect, it } from 'vitest';
import { avg, col, count, max, sum } from '../../src/index.js';
import type { FieldDesc } from '../../src/types/column.js';
import { enginePool, SETTINGS } from '../support/engines.js';
import { makeTable } from '../support/tables.js';

const engineFor = enginePool();
const schema: FieldDesc[] = [
  { name: 'user_id', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'ts', type: { kind: 'timestamp', unit: 'ms', timezone: null }, nullable: true },
  { name: 'tokens', type: { kind: 'int', bits: 64, signed: true }, nullable: true },
  { name: 'spend', type: { kind: 'float', bits: 64 }, nullable: true },
];
const table = makeTable(schema, { user_id: [1n], ts: [0n], tokens: [1n], spend: [0.5] });

describe('explain and schema', () => {
  it('window: hash partitioning, one radix sort, the algorithm per column', async () => {
    const df = engineFor(SETTINGS[3]!)
      .fromArrow(table)
      .window({
        partitionBy: 'user_id',
        orderBy: 'ts',
        columns: { t7: sum('tokens').rows(6), s7: sum('spend').rows(6), c: count(), m: max('tokens').rows(2, 2), a: avg('spend').range('7d') },
      });
    const text = await df.explain();
    expect(text).toMatch(/hash\(user_id\) into 7 partitions/);
    expect(text).toMatch(/LSD radix argsort, once/);
    expect(text).toMatch(/t7 = sum\(tokens\) ROWS BETWEEN 6 PRECEDING AND CURRENT ROW: differences of one running prefix/);
    expect(text).toMatch(/s7 = sum\(spend\).*pairwise block sums/);
    expect(text).toMatch(/m = max\(tokens\).*monotonic deque/);
    const s = await df.schema();
    expect(s.fields.map((f) => f.name)).toEqual(['user_id', 'ts', 'tokens', 'spend', 't7', 's7', 'c', 'm', 'a']);
    expect(String(s.fields[4]!.type)).toBe('Int64');
    expect(String(s.fields[5]!.type)).toBe('Float64');
  });

  it('row-local chains say they stream without a shuffle', async () => {
    const text = await engineFor(SETTINGS[0]!).fromArrow(table).withColumns({ x: col('tokens').add(1) }).filter('x > 1').explain();
    expect(text).toMatch(/RowLocal \(streaming/);
    expect(text).toMatch(/withColumns x/);
    expect(text).toMatch(/filter/);
  });
});
