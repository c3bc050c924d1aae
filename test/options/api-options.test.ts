/**
 * Options objects and arguments of the public API are checked (issue 7.1, API.md "Errors"):
 * an unknown key is a PlanError UNKNOWN_OPTION naming it, the known keys and the closest one;
 * a wrong type or value is a PlanError BAD_OPTION "Expected X, got Y". Each misspelling below
 * used to be ignored (a silently wrong result) or to crash later.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Schema, Field, Int64, tableFromArrays } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { col, count, Engine, PlanError, sum, type DataFrame } from '../../src/index.js';

const engine = new Engine({ threads: 0 });
const dir = mkdtempSync(join(tmpdir(), 'sluice-options-'));
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});
const csv = join(dir, 'a.csv');
writeFileSync(csv, 'a,b\n1,10\n2,20\n3,30\n');

const table = tableFromArrays({ u: Int32Array.from([1, 1, 2, 2]), t: Float64Array.from([1, 2, 3, 4]), v: Float64Array.from([1, 2, 3, 4]) });
const df = (): DataFrame => engine.fromArrow(table);
const lists = tableFromArrays({ id: Int32Array.from([1]) });

/** The PlanError `fn` throws (synchronously, or as a rejection). */
async function planError(fn: () => unknown): Promise<PlanError> {
  let err: unknown;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(PlanError);
  expect((err as Error).message).not.toMatch(/\n/);
  return err as PlanError;
}

describe('the misspellings and mistypes of issue 7.1', () => {
  it('window({ partition_by }) is UNKNOWN_OPTION with "did you mean `partitionBy`?"', async () => {
    const e = await planError(() => df().window({ partition_by: 'u', orderBy: 't', columns: { s: sum('v') } } as never));
    expect(e.code).toBe('UNKNOWN_OPTION');
    expect(e.message).toBe('window(): unknown option `partition_by`; did you mean `partitionBy`? Known options: partitionBy, orderBy, columns, preserveOrder');
    expect(e.details).toMatchObject({ option: 'partition_by', known: ['partitionBy', 'orderBy', 'columns', 'preserveOrder'], suggestion: 'partitionBy' });
  });

  it("explode(e, { outputCol }) is UNKNOWN_OPTION suggesting outputColumn", async () => {
    const e = await planError(() => df().explode(col('v'), { outputCol: 'x' } as never));
    expect(e.code).toBe('UNKNOWN_OPTION');
    expect(e.message).toContain('unknown option `outputCol`; did you mean `outputColumn`?');
  });

  it("explode('l', { ignoreEmptyAndNull: 'yes' }) is BAD_OPTION: Expected X, got Y", async () => {
    const e = await planError(() => df().explode('l', { ignoreEmptyAndNull: 'yes' as never }));
    expect(e.code).toBe('BAD_OPTION');
    expect(e.message).toBe('explode(): `ignoreEmptyAndNull`: Expected true or false, got "yes" (string)');
  });

  it('the errors come from the method call, before any action', () => {
    expect(() => df().window({ partition_by: 'u', orderBy: 't', columns: { s: sum('v') } } as never)).toThrow(PlanError);
    expect(() => df().explode('v', { outputCol: 'x' } as never)).toThrow(PlanError);
  });
});

describe('UNKNOWN_OPTION on every options object, with the closest known key', () => {
  const S = new Schema([new Field('a', new Int64()), new Field('b', new Int64())]);
  const cases: Array<[string, (o: Record<string, unknown>) => unknown, Record<string, unknown>]> = [
    ['new Engine()', (o) => new Engine(o), { threads: 0 }],
    ['window()', (o) => df().window(o as never), { partitionBy: 'u', orderBy: 't', columns: { s: sum('v') } }],
    ['explode()', (o) => engine.fromArrow(lists).explode('id', o), { outputColumn: 'x', ignoreEmptyAndNull: true, ordinality: 'pos' }],
    ['asofJoin()', (o) => df().asofJoin(df(), o as never), { on: 't', by: 'u', direction: 'nearest', tolerance: 1, allowExactMatches: true, condition: 'v > 0', how: 'inner', nullsEqual: true, timeZone: 'UTC', suffix: '_r' }],
    ['readCsv()', (o) => engine.readCsv(csv, o), { schema: S, header: true, delimiter: ',' }],
    ['collect()', (o) => df().collect(o), { signal: new AbortController().signal }],
    ['execute()', (o) => df().execute(o), { signal: new AbortController().signal }],
    ['stream()', (o) => df().stream(o), { signal: new AbortController().signal }],
    ['writeIpc()', (o) => df().writeIpc(join(dir, 'x.arrow'), o), { signal: new AbortController().signal }],
    ['writeParquet()', (o) => df().writeParquet(join(dir, 'x.parquet'), o), { signal: new AbortController().signal }],
    ['writeCsv()', (o) => df().writeCsv(join(dir, 'x.csv'), o), { signal: new AbortController().signal }],
  ];

  /** Typos of a key: a letter dropped, snake_case, all lower case. */
  const typos = (k: string): string[] => [k.slice(0, -2) + k.slice(-1), k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), k.toLowerCase()].filter((t) => t !== k);

  for (const [where, call, valid] of cases) {
    // (keys of one or two letters, `on` and `by`, have no typo to suggest from)
    for (const key of Object.keys(valid).filter((k) => k.length > 2)) {
      it.each(typos(key))(`${where}: ${key} misspelled as %s`, async (typo) => {
        const { [key]: value, ...rest } = valid;
        const e = await planError(() => call({ ...rest, [typo]: value }));
        expect(e.code).toBe('UNKNOWN_OPTION');
        expect(e.message).toContain(`${where}: unknown option \`${typo}\`; did you mean \`${key}\`?`);
        expect(e.details.known).toEqual(expect.arrayContaining(Object.keys(valid)));
      });
    }
  }

  it('nested options objects too: orderBy items, CSV schema fields', async () => {
    const e = await planError(() => df().window({ orderBy: { column: 't', desc: true } as never, columns: { s: sum('v') } }));
    expect(e.code).toBe('UNKNOWN_OPTION');
    expect(e.message).toBe('window(): `orderBy`: unknown option `desc`; did you mean `descending`? Known options: column, descending, nulls');
    expect(e.details).toMatchObject({ option: 'orderBy.desc', suggestion: 'descending' });
    const f = await planError(() => engine.readCsv(csv, { schema: [{ name: 'a', typ: 'int64' }] as never }));
    expect(f.code).toBe('UNKNOWN_OPTION');
    expect(f.message).toBe('readCsv(): `schema[0]`: unknown option `typ`; did you mean `type`? Known options: name, type, nullable');
  });

  it('readIpc() and readParquet() take no options yet, and say so', async () => {
    const e = await planError(() => engine.readParquet(csv, { columns: ['a'] } as never));
    expect(e.code).toBe('UNKNOWN_OPTION');
    expect(e.message).toBe('readParquet(): unknown option `columns`. Known options: (none)');
    expect((await planError(() => engine.readIpc(csv, { format: 'stream' } as never))).code).toBe('UNKNOWN_OPTION');
  });
});

describe('BAD_OPTION: Expected X, got Y', () => {
  it.each<[string, () => unknown, string]>([
    ['threads', () => new Engine({ threads: -1 }), 'new Engine(): `threads`: Expected an integer from 0 to 256, got -1 (number)'],
    ['threads too many', () => new Engine({ threads: 5000 }), 'new Engine(): `threads`: Expected an integer from 0 to 256, got 5000 (number)'],
    ['partitions', () => new Engine({ partitions: 1.5 }), 'new Engine(): `partitions`: Expected an integer from 1 to 65536, got 1.5 (number)'],
    ['partitions too many', () => new Engine({ partitions: 100_000_000 }), 'new Engine(): `partitions`: Expected an integer from 1 to 65536, got 100000000 (number)'],
    ['memoryBudget type', () => new Engine({ memoryBudget: true as never }), "new Engine(): `memoryBudget`: Expected a number of bytes or a size such as '512MiB', got true (boolean)"],
    ['memoryBudget value', () => new Engine({ memoryBudget: 'lots' }), "new Engine(): `memoryBudget`: Expected a memory size as a number of bytes or a string like '512MiB' or '2GB' (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, or K, M, G, T for KiB … TiB), got \"lots\" (string)"],
    ['onProgress', () => new Engine({ onProgress: 'log' as never }), 'new Engine(): `onProgress`: Expected a function, got "log" (string)'],
    ['windowAlgorithm', () => new Engine({ windowAlgorithm: 'prefx' as never }), 'new Engine(): `windowAlgorithm`: Expected one of "prefix", "naive", got "prefx" (string); did you mean "prefix"?'],
    ['options object', () => new Engine(5 as never), 'new Engine(): Expected an options object, got 5 (number)'],
    ['partitionBy', () => df().window({ partitionBy: 3 as never, orderBy: 't', columns: { s: sum('v') } }), 'window(): `partitionBy`: Expected a column name or a list of column names, got 3 (number)'],
    ['partitionBy item', () => df().window({ partitionBy: ['u', 3] as never, columns: { s: sum('v') } }), 'window(): `partitionBy[1]`: Expected a column name (non-empty string), got 3 (number)'],
    ['orderBy nulls', () => df().window({ orderBy: [{ column: 't', nulls: 'middle' as never }], columns: { s: sum('v') } }), 'window(): `orderBy[0].nulls`: Expected one of "first", "last", got "middle" (string)'],
    ['columns empty', () => df().window({ orderBy: 't', columns: {} }), "window(): `columns`: Expected an object { name: window function } with at least one column, e.g. { tokens_7d: sum('tokens').rows(6) }, got an object {}"],
    ['columns value', () => df().window({ orderBy: 't', columns: { s: 42 as never } }), "window(): `columns.s`: Expected a window function such as sum('tokens').rows(6), got 42 (number)"],
    ['outputColumn', () => df().explode('v', { outputColumn: [] }), 'explode(): `outputColumn`: Expected a non-empty list of column names, got an array []'],
    ['explode column', () => df().explode(42 as never), 'explode(): `column`: Expected a column name, an expression, or a non-empty list of them, got 42 (number)'],
    ['explode no column', () => df().explode([]), 'explode(): `column`: Expected a non-empty list of columns or expressions, got an array []'],
    ['asof on', () => df().asofJoin(df(), { on: ['t'] as never }), 'asofJoin(): `on`: Expected [leftColumn, rightColumn], got an array ["t"]'],
    ['asof direction', () => df().asofJoin(df(), { on: 't', direction: 'backwards' as never }), 'asofJoin(): `direction`: Expected one of "backward", "forward", "nearest", got "backwards" (string); did you mean "backward"?'],
    ['asof condition', () => df().asofJoin(df(), { on: 't', condition: 5 }), 'asofJoin(): `condition`: Expected an expression or an SQL condition string, got 5 (number)'],
    ['asof by pair', () => df().asofJoin(df(), { on: 't', by: [['u', 2 as never]] }), 'asofJoin(): `by[0][1]`: Expected a column name (non-empty string), got 2 (number)'],
    ['asof right', () => df().asofJoin(table as never, { on: 't' }), 'asofJoin(): `right`: Expected a DataFrame, got a Table'],
    ['csv header', () => engine.readCsv(csv, { header: 'yes' as never }), 'readCsv(): `header`: Expected true or false, got "yes" (string)'],
    ['csv delimiter', () => engine.readCsv(csv, { delimiter: '' }), 'readCsv(): `delimiter`: Expected a delimiter (a non-empty string without quotes or line breaks), got "" (string)'],
    ['csv schema type', () => engine.readCsv(csv, { schema: { a: 'int65' } }), 'readCsv(): `schema.a`: Expected a type name'],
    ['path', () => engine.readCsv('' as never), 'readCsv(): `path`: Expected a file path (non-empty string), got "" (string)'],
    ['signal', () => df().collect({ signal: 'now' as never }), 'collect(): `signal`: Expected an AbortSignal, got "now" (string)'],
    ['stream signal', () => df().stream({ signal: 5 as never }), 'stream(): `signal`: Expected an AbortSignal, got 5 (number)'],
    ['write path', () => df().writeIpc(42 as never), 'writeIpc(): `path`: Expected a file path (non-empty string), got 42 (number)'],
    ['limit', () => df().limit(-1), 'limit(): `n`: Expected an integer >= 0, got -1 (number)'],
    ['limit type', () => df().limit('3' as never), 'limit(): `n`: Expected an integer >= 0, got "3" (string)'],
    ['filter', () => df().filter(42 as never), 'filter(): `predicate`: Expected an expression or an SQL condition string, got 42 (number)'],
    ['withColumns', () => df().withColumns(5 as never), 'withColumns(): `columns`: Expected an object { name: expression }'],
    ['withColumns value', () => df().withColumns({ w: 5 as never }), 'withColumns(): `columns.w`: Expected an expression (col(...), expr(...)) or a column name, got 5 (number)'],
    ['select', () => df().select('u', 42 as never), 'select(): `exprs[1]`: Expected an expression (col(...), expr(...)) or a column name, got 42 (number)'],
    ['sum column', () => sum(42 as never), 'sum(): `column`: Expected a column name (non-empty string), got 42 (number)'],
    ['count column', () => count(''), 'count(): `column`: Expected a column name (non-empty string), got "" (string)'],
    ['rows preceding', () => sum('v').rows({} as never), "sum(\"v\").rows(): `preceding`: Expected a number, a bigint, 'unbounded' or a duration such as '7d', got an object {}"],
    ['range following', () => sum('v').range(1, true as never), "sum(\"v\").range(): `following`: Expected a number, a bigint, 'unbounded' or a duration such as '7d', got true (boolean)"],
    ['rows missing', () => sum('v').rows(undefined as never), "sum(\"v\").rows(): `preceding`: Expected a number, a bigint, 'unbounded' or a duration such as '7d', got nothing (undefined)"],
  ])('%s', async (_name, fn, message) => {
    const e = await planError(fn);
    expect(e.code).toBe('BAD_OPTION');
    expect(e.message.startsWith(message), `${e.message}\n  does not start with\n${message}`).toBe(true);
  });
});

describe('valid options keep working, and the plan keeps what was checked', () => {
  it('window with partitionBy partitions (not the whole table)', async () => {
    const out = await df().window({ partitionBy: 'u', orderBy: 't', columns: { s: sum('v').rows('unbounded') } }).collect();
    expect([...out.getChild('s')!.toArray()]).toEqual([1, 3, 3, 7]);
  });

  it('an empty partitionBy or by list means none', async () => {
    const out = await df().window({ partitionBy: [], orderBy: 't', columns: { s: sum('v').rows('unbounded') } }).collect();
    expect([...out.getChild('s')!.toArray()]).toEqual([1, 3, 6, 10]);
    expect((await df().asofJoin(df(), { on: 't', by: [] }).collect()).numRows).toBe(4);
  });

  it('changing the options object after the call does not change the plan', async () => {
    const options = { partitionBy: 'u' as string | undefined, orderBy: 't', columns: { s: sum('v').rows('unbounded') } };
    const windowed = df().window(options);
    options.partitionBy = undefined;
    (options.columns as Record<string, unknown>).s = 42;
    const out = await windowed.collect();
    expect([...out.getChild('s')!.toArray()]).toEqual([1, 3, 3, 7]);
  });

  it("readCsv takes { name: type }, [{ name, type }], 'name type, ...' and an Arrow Schema", async () => {
    const forms = [
      { a: 'int64', b: 'int64' },
      [{ name: 'a', type: 'int64' }, { name: 'b', type: 'int64', nullable: false }],
      'a int64, b int64',
      new Schema([new Field('a', new Int64()), new Field('b', new Int64())]),
    ];
    for (const schema of forms) {
      const t = await engine.readCsv(csv, { schema }).collect();
      expect(t.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(['a:Int64', 'b:Int64']);
      expect([...t.getChild('b')!.toArray()]).toEqual([10n, 20n, 30n]);
    }
  });

  it('asofJoin accepts bigint and Infinity tolerances and Expr conditions', async () => {
    const r = await df().asofJoin(df(), { on: 't', tolerance: Infinity, condition: col('v').ge(col('v_right')) }).collect();
    expect(r.numRows).toBe(4);
    const b = await df().asofJoin(df(), { on: 't', tolerance: 1n as never }).collect();
    expect(b.numRows).toBe(4);
  });

  it('after an options error the engine is still usable', async () => {
    expect(() => df().window({ orderBy: 't', columns: { s: sum('v') }, colums: {} } as never)).toThrow(PlanError);
    expect((await df().limit(2).collect()).numRows).toBe(2);
  });
});
