/**
 * The options of readCsv / readNdjson as users give them (API.md "Engine"), turned into what
 * the readers in src/io take. A schema may be
 *   - `{ name: type }`                       e.g. `{ id: 'int64', ts: 'timestamp[ms, UTC]' }`
 *   - `[{ name, type, nullable? }]`
 *   - `'name type, name type, …'`            e.g. `'id int64, ts timestamp[ms, UTC]'`
 *     (a name with spaces or commas in double quotes: `"my col" utf8`)
 *   - an apache-arrow Schema (from any copy of apache-arrow)
 * where a type is a type name as job files and `cast` take it (`int64`, `float64`, `utf8`,
 * `bool`, `date32`, `timestamp[ms, UTC]`, …) or an apache-arrow DataType. Errors are PlanError
 * BAD_OPTION naming the option and what was expected.
 */
import type * as A from 'apache-arrow';
import { Field } from 'apache-arrow';
import { PlanError, show } from '../errors.js';
import { parseTypeName, TYPE_NAMES, typeToArrow } from '../expr/arrow-types.js';
import { isSchemaLike, isTypeLike, plainSchema, plainType, type SchemaLike, type TypeLike } from '../io/arrow-input.js';
import type { CsvReadOptions } from '../io/csv.js';
import type { NdjsonReadOptions } from '../io/ndjson.js';

export type ColumnType = string | A.DataType | TypeLike;
export type SchemaOption = Record<string, ColumnType> | Array<{ name: string; type: ColumnType; nullable?: boolean }> | string | A.Schema | SchemaLike;

export interface CsvOptions {
  /** column types: by name with a header (other columns inferred), by position without */
  schema?: SchemaOption;
  /** default true */
  header?: boolean;
  /** default ',' */
  delimiter?: string;
  /** default '"' */
  quote?: string;
  /** default: the quote character (`""` inside quotes) */
  escape?: string;
  /** fields read as NULL; default `['']` (a given list replaces it) */
  nullValues?: string[];
  /** rows sampled to infer column types; default 65536 (0: inferred columns are utf8) */
  inferRows?: number;
  /** recognize ISO-8601 dates and timestamps when inferring; default true */
  inferDates?: boolean;
}

export interface NdjsonOptions {
  /** column types by key (other keys of the objects are left out) */
  schema?: SchemaOption;
  /** lines sampled to infer the schema; default 65536 */
  inferRows?: number;
}

function bad(method: string, option: string, expected: string, got: unknown): PlanError {
  return new PlanError('BAD_OPTION', `${method}: expected \`${option}\` to be ${expected}, got \`${show(got)}\``, { option });
}

function columnType(method: string, where: string, t: unknown): A.DataType {
  if (typeof t === 'string') {
    const desc = parseTypeName(t);
    if (desc) return typeToArrow(desc);
    throw bad(method, where, `a type name (${TYPE_NAMES.join(', ')})`, t);
  }
  if (isTypeLike(t)) return plainType(t);
  throw bad(method, where, 'a type name or an Arrow DataType', t);
}

/** Splits `'a int64, "b c" timestamp[ms, UTC]'` at the commas outside brackets and quotes. */
function splitSchemaText(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '[' || c === '<' || c === '(')) depth++;
    else if (!quoted && (c === ']' || c === '>' || c === ')')) depth--;
    else if (!quoted && depth === 0 && c === ',') {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** The user's schema option as apache-arrow Fields (this copy), names unique. */
export function schemaOption(method: string, v: unknown): Field[] {
  let fields: Field[];
  if (isSchemaLike(v)) fields = plainSchema(v).fields;
  else if (typeof v === 'string') {
    fields = splitSchemaText(v).map((part, i) => {
      const m = /^(?:"([^"]+)"|(\S+))\s+(.+)$/.exec(part);
      if (!m) throw bad(method, `schema[${i}]`, "'name type' (e.g. 'id int64')", part);
      const name = m[1] ?? m[2]!;
      return new Field(name, columnType(method, `schema.${name}`, m[3]!.trim()), true);
    });
  } else if (Array.isArray(v)) {
    fields = v.map((f: unknown, i) => {
      const o = f as { name?: unknown; type?: unknown; nullable?: unknown } | null;
      if (!o || typeof o !== 'object' || typeof o.name !== 'string' || o.name === '') throw bad(method, `schema[${i}]`, '{ name, type }', f);
      if (o.nullable !== undefined && typeof o.nullable !== 'boolean') throw bad(method, `schema[${i}].nullable`, 'true or false', o.nullable);
      return new Field(o.name, columnType(method, `schema[${i}].type`, o.type), o.nullable ?? true);
    });
  } else if (v && typeof v === 'object') {
    fields = Object.entries(v).map(([name, t]) => new Field(name, columnType(method, `schema.${name}`, t), true));
  } else {
    throw bad(method, 'schema', "{ name: type }, [{ name, type }], 'name type, …' or an Arrow Schema", v);
  }
  if (fields.length === 0) throw bad(method, 'schema', 'at least one column', v);
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.name)) throw bad(method, 'schema', 'columns with distinct names', `${f.name} twice`);
    seen.add(f.name);
  }
  return fields;
}

export function csvReadOptions(o: CsvOptions): CsvReadOptions {
  if (typeof o !== 'object' || o === null) throw bad('readCsv', 'options', 'an object', o);
  const { schema, ...rest } = o;
  return { ...rest, ...(schema !== undefined ? { schema: schemaOption('readCsv', schema) } : {}) };
}

export function ndjsonReadOptions(o: NdjsonOptions): NdjsonReadOptions {
  if (typeof o !== 'object' || o === null) throw bad('readNdjson', 'options', 'an object', o);
  const { schema, ...rest } = o;
  return { ...rest, ...(schema !== undefined ? { schema: schemaOption('readNdjson', schema) } : {}) };
}
