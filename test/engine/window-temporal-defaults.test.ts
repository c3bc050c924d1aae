/**
 * lag/lead defaults for DATE and TIMESTAMP columns given as a Date (as lit() takes one) or as ISO
 * text, besides a count of the column's unit: the same instant whichever way it is written.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, lag, lead, PlanError } from '../../src/index.js';
import { rejection } from '../support/rejection.js';

const engine = new Engine({ threads: 0 });
afterAll(() => engine.close());

const MS = Date.UTC(2024, 2, 10, 1, 30, 0, 250);
const DAY = Date.UTC(2024, 2, 10) / 86_400_000;

function table(): A.Table {
  const ts = A.makeData({ type: new A.TimestampMicrosecond(), length: 3, nullCount: 0, data: new BigInt64Array([1_000_000n, 2_000_000n, 3_000_000n]) });
  const d = A.makeData({ type: new A.DateDay(), length: 3, nullCount: 0, data: new Int32Array([1, 2, 3]) });
  const k = A.makeData({ type: new A.Int32(), length: 3, nullCount: 0, data: new Int32Array([1, 2, 3]) });
  return new A.Table({ k: new A.Vector([k]), ts: new A.Vector([ts]), d: new A.Vector([d]) });
}

async function firstLag(column: 'ts' | 'd', dflt: unknown): Promise<unknown> {
  const out = await engine.fromArrow(table()).window({ orderBy: 'k', columns: { x: lag(column, 1, dflt) } }).execute();
  const v = out.table.getChild('x')!;
  return v.type instanceof A.Timestamp ? (v.data[0]!.values as BigInt64Array)[0] : (v.data[0]!.values as Int32Array)[0];
}

describe('temporal lag/lead defaults', () => {
  it('a Date, ISO text and a count of the unit give the same timestamp', async () => {
    const want = BigInt(MS) * 1000n;
    expect(await firstLag('ts', new Date(MS))).toBe(want);
    expect(await firstLag('ts', '2024-03-10T01:30:00.250Z')).toBe(want);
    expect(await firstLag('ts', '2024-03-10 01:30:00.25')).toBe(want);
    expect(await firstLag('ts', want)).toBe(want);
  });

  it('a Date at midnight and date text as a DATE default', async () => {
    expect(await firstLag('d', new Date(Date.UTC(2024, 2, 10)))).toBe(DAY);
    expect(await firstLag('d', '2024-03-10')).toBe(DAY);
    const out = await engine.fromArrow(table()).window({ orderBy: 'k', columns: { x: lead('d', 1, '2024-03-10') } }).execute();
    expect((out.table.getChild('x')!.data[0]!.values as Int32Array)[2]).toBe(DAY);
  });

  it('refuses an instant the unit cannot hold, bad text and an invalid Date', async () => {
    const refused = async (column: 'ts' | 'd', dflt: unknown, pattern: RegExp): Promise<void> => {
      const err = await rejection(firstLag(column, dflt));
      expect(err).toBeInstanceOf(PlanError);
      expect((err as PlanError).code).toBe('BAD_OPTION');
      expect((err as Error).message).toMatch(pattern);
    };
    await refused('d', new Date(MS), /exact in that unit/);
    await refused('ts', '2024-03-10T01:30:00.0000001Z', /exact in that unit/);
    await refused('ts', 'yesterday', /ISO date\/time text/);
    await refused('ts', new Date(NaN), /a valid Date/);
  });
});
