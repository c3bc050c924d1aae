/**
 * The did-you-mean helper (options/kit.ts suggest) shared by options, job files and type
 * names: a suggestion only when at most about a third of the longer word is wrong (at least one
 * letter, a swap of neighbours counting as one), so short words are not "corrected" into
 * unrelated ones (`foo` used to suggest `bool`).
 */
import { describe, expect, it } from 'vitest';
import { Engine, PlanError } from '../../src/index.js';
import { editDistance, suggest } from '../../src/options/kit.js';

const TYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'utf8', 'string', 'date32', 'date'];
const FNS = ['sum', 'count', 'avg', 'min', 'max', 'first', 'last', 'countDistinct'];

describe('suggest: near misses only', () => {
  it.each<[string, readonly string[], string | null]>([
    ['foo', TYPES, null],
    ['fo', TYPES, null],
    ['in', TYPES, null],
    ['a', FNS, null],
    ['x', FNS, null],
    ['zz', ['on', 'by', 'how'], null],
    ['mean', FNS, null],
    ['de', ['column', 'descending', 'nulls'], null],
    // one letter off in a short word is still a typo
    ['bol', TYPES, 'bool'],
    ['mx', FNS, 'max'],
    ['hw', ['on', 'by', 'how'], 'how'],
    // a swap of neighbours is one edit
    ['cvs', ['ipc', 'parquet', 'csv', 'ndjson', 'demo'], 'csv'],
    ['smu', FNS, 'sum'],
    // longer words allow more
    ['cnt', FNS, 'count'],
    ['flot64', TYPES, 'float64'],
    ['outputCol', ['outputColumn', 'ignoreEmptyAndNull', 'ordinality'], 'outputColumn'],
    ['partition_by', ['partitionBy', 'orderBy', 'columns'], 'partitionBy'],
    ['desc', ['column', 'descending', 'nulls'], 'descending'],
  ])('%s among %j: %s', (word, candidates, expected) => {
    expect(suggest(word, candidates)).toBe(expected);
  });

  it('editDistance counts a swap as one edit', () => {
    expect(editDistance('cvs', 'csv')).toBe(1);
    expect(editDistance('foo', 'bool')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('a short type name that is no typo gets no hint; a near one does', () => {
    const engine = new Engine({ threads: 0 });
    const message = (type: string): string => {
      try {
        engine.readCsv('x.csv', { schema: { a: type } });
      } catch (err) {
        expect(err).toBeInstanceOf(PlanError);
        return (err as Error).message;
      }
      throw new Error(`schema type ${type} was accepted`);
    };
    expect(message('foo')).toMatch(/got "foo" \(string\)$/);
    expect(message('bol')).toMatch(/got "bol" \(string\); did you mean "bool"\?$/);
    return engine.close();
  });
});
