/**
 * `rename({ old: 'new' })`, `drop(...names)` and `union(...others)` checked against schemas
 * (API.md "DataFrame"): PlanErrors before any row is read. rename and drop are projections
 * (column indices and names, no copy); union needs the same column names and types in the same
 * order (nullability may differ: the output is nullable where any input is).
 */
import { PlanError, show } from '../errors.js';
import { typesEqual, typeToString, type FieldDesc } from '../types/column.js';
import { findColumn } from './key-types.js';

export interface Projection {
  /** Input column index of each output column. */
  columns: number[];
  output: FieldDesc[];
}

export function resolveRename(mapping: Array<[string, string]>, schema: FieldDesc[]): Projection {
  const names = schema.map((f) => f.name);
  for (const [from, to] of mapping) {
    const ref = findColumn(schema, from, 'rename()');
    if (typeof to !== 'string' || to === '') throw new PlanError('BAD_COLUMN_NAME', `rename(): the new name of ${show(from)} must be a non-empty string, got ${show(to)}`, { column: from });
    names[ref.index] = to;
  }
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new PlanError('DUPLICATE_COLUMN', `rename(): the result would have two columns named ${show(n)}; columns would be ${names.map((x) => show(x)).join(', ')}`, { column: n });
    seen.add(n);
  }
  return { columns: schema.map((_, i) => i), output: schema.map((f, i) => ({ ...f, name: names[i]! })) };
}

export function resolveDrop(drop: string[], schema: FieldDesc[]): Projection {
  const gone = new Set(drop.map((n) => findColumn(schema, n, 'drop()').index));
  const columns = schema.map((_, i) => i).filter((i) => !gone.has(i));
  if (columns.length === 0) throw new PlanError('EMPTY_SELECT', `drop(): dropping ${drop.map((n) => show(n)).join(', ')} would leave no column`, {});
  return { columns, output: columns.map((i) => ({ ...schema[i]! })) };
}

/** The schema of `this.union(...others)`; PlanError UNION_SCHEMA naming the first difference. */
export function resolveUnion(schemas: FieldDesc[][]): FieldDesc[] {
  const first = schemas[0]!;
  const out = first.map((f) => ({ ...f }));
  schemas.slice(1).forEach((s, k) => {
    const which = `union(): input ${k + 1} (0 is this DataFrame)`;
    const listing = (x: FieldDesc[]) => x.map((f) => `${f.name}: ${typeToString(f.type)}`).join(', ');
    if (s.length !== first.length) {
      throw new PlanError('UNION_SCHEMA', `${which} has ${s.length} columns (${listing(s)}), this DataFrame has ${first.length} (${listing(first)}); union needs the same column names and types`, {});
    }
    s.forEach((f, i) => {
      const g = first[i]!;
      if (f.name !== g.name) {
        throw new PlanError('UNION_SCHEMA', `${which}: column ${i} is ${show(f.name)} where this DataFrame has ${show(g.name)}; union needs the same column names in the same order (select() to reorder)`, { column: f.name });
      }
      if (!typesEqual(f.type, g.type)) {
        throw new PlanError('UNION_SCHEMA', `${which}: column ${show(f.name)} is ${typeToString(f.type)} where this DataFrame has ${typeToString(g.type)}; cast one side`, { column: f.name });
      }
      if (f.nullable) out[i]!.nullable = true;
    });
  });
  return out;
}
