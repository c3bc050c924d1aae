/** CSV source schemas in job files take every type name `cast` takes, zones kept exactly. */
import { describe, expect, it } from 'vitest';
import { parseJob } from '../../src/cli/job.js';

function csvSchemaOf(types: Record<string, string>) {
  const job = parseJob({
    sources: { c: { type: 'csv', path: 'x.csv', schema: Object.entries(types).map(([name, type]) => ({ name, type })) } },
    steps: [],
  });
  const src = job.sources.c as { schema?: { fields: Array<{ name: string; type: unknown }> } };
  return src.schema!.fields.map((f) => String(f.type));
}

describe('job file CSV schema', () => {
  it('keeps the zone of a padded timestamp name', () => {
    expect(csvSchemaOf({ ts: ' timestamp[ms,UTC]' })).toEqual(['Timestamp<MILLISECOND, UTC>']);
  });
  it('accepts the names cast accepts', () => {
    expect(csvSchemaOf({ a: 'bigint', b: 'date64', c: 'double', d: 'string' })).toEqual(['Int64', 'Date64<MILLISECOND>', 'Float64', 'Utf8']);
  });
  it('rejects an unknown type name', () => {
    expect(() => csvSchemaOf({ a: 'decimal' })).toThrow(/type name/);
  });
});
