/**
 * Window plan errors of the new functions are PlanErrors raised before any row is read: the
 * source below yields its schema batch, then fails if the engine pulls more. The error names
 * the column and what was expected; explain() and schema() raise the same error.
 */
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, lag, nthValue, PlanError, rank, stddev, sum, type WindowFn } from '../../src/index.js';

const engine = new Engine({ threads: 1, partitions: 4 });
afterAll(() => engine.close());

function source(): AsyncIterable<A.RecordBatch> {
  const t = new A.Table({ t: A.vectorFromArray([1, 2, 3], new A.Int32()), s: A.vectorFromArray(['a', 'b', 'c'], new A.Utf8()), d: A.vectorFromArray([1, 2, 3], new A.Float64()) });
  return {
    async *[Symbol.asyncIterator]() {
      yield t.batches[0]!;
      throw new Error('the engine read rows past the schema before checking the plan');
    },
  };
}

async function planErrorOf(columns: Record<string, WindowFn>, orderBy: string | null): Promise<PlanError> {
  const df = engine.fromArrow(source()).window(orderBy === null ? { columns } : { orderBy, columns });
  let err: unknown;
  try {
    await df.collect();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(PlanError);
  return err as PlanError;
}

describe('window PlanErrors before any row is read', () => {
  it.each([
    ['stddev of strings', { a: stddev('s') }, 'MEASURE_TYPE', '"s"'],
    ['a lag default of the wrong type', { a: lag('s', 1, 5) }, 'BAD_OPTION', 'utf8'],
    ['a GROUPS frame without orderBy', { a: sum('d').groups(1, 0) }, 'FRAME_WITHOUT_ORDER', 'GROUPS'],
    ['a decimal RANGE offset on an integer key', { a: nthValue('d', 2).range('0.5') }, 'INVALID_OFFSET', '0.5'],
  ] as const)('%s', async (_name, columns, code, mention) => {
    const err = await planErrorOf(columns as unknown as Record<string, WindowFn>, code === 'FRAME_WITHOUT_ORDER' ? null : 't');
    expect(err.code).toBe(code);
    expect(err.message).toContain(mention);
  });

  it('frames on ranking functions fail at the builder, with the function named', () => {
    expect(() => rank().rows(1)).toThrow(PlanError);
    expect(() => rank().rows(1)).toThrow(/rank\(\) takes no frame/);
  });
});
