/**
 * Options of the file sources (API.md "Engine"): `readCsv(path, options)`,
 * `readNdjson(path, options)`, and the (for now empty) options of `readIpc` / `readParquet`,
 * which still reject unknown keys; and their `path` argument (a file, glob or folder, or a
 * non-empty list of them).
 *
 * A CSV / NDJSON `schema` is given as an Arrow Schema (from any apache-arrow copy),
 * `{ name: type }`, `[{ name, type, nullable? }]` or `'name type, ...'` (`"my col" utf8` for a
 * name with spaces), with the type names of job files and `cast` (expr/arrow-types) or, in the
 * API, Arrow DataTypes; every form is turned into an Arrow Schema of this apache-arrow copy
 * (plain types: io/arrow-input.ts) here, so the readers see one form.
 */
import * as A from 'apache-arrow';
import * as z from 'zod';
import { parseTypeName, TYPE_NAMES, typeNameHint, typeToArrow } from '../expr/arrow-types.js';
import { isSchemaLike, isTypeLike, plainSchema, plainType, type SchemaLike, type TypeLike } from '../io/arrow-input.js';
import { anyOf, bool, describeValue, entries, expecting, instance, int, list, name, options } from './kit.js';

const TYPE_LIST = TYPE_NAMES.join(', ');

const typeHint = (input: unknown): string => (typeof input === 'string' ? typeNameHint(input) : '');

/** A type name such as 'int64' or 'timestamp[ms, UTC]'; a near miss gets "did you mean". */
const typeName = () =>
  z.string(expecting(`a type name (${TYPE_LIST})`)).refine((s) => parseTypeName(s) !== null, {
    error: (iss) => `Expected a type name (${TYPE_LIST}), got ${describeValue(iss.input)}${typeHint(iss.input)}`,
  });

/** A type name, or (API only) an Arrow DataType of any apache-arrow copy. */
const columnType = () =>
  anyOf(`a type name (${TYPE_LIST}) or an Arrow DataType`, [typeName(), instance<TypeLike>('an Arrow DataType', (v): v is TypeLike => isTypeLike(v))]);

const toArrow = (type: string | TypeLike): A.DataType => (typeof type === 'string' ? typeToArrow(parseTypeName(type)!) : plainType(type));

function isArrowSchema(v: unknown): v is SchemaLike {
  return isSchemaLike(v);
}

/** Splits `'a int64, ts timestamp[ms, UTC]'` at the commas outside brackets and double quotes. */
function splitColumns(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/** `'name type'` or `'"a name" type'` → [name, type], or null. */
function columnOfText(part: string): [string, string] | null {
  const m = /^(?:"([^"]+)"|([^\s"]+))\s+(\S.*)$/.exec(part);
  return m && parseTypeName(m[3]!) ? [m[1] ?? m[2]!, m[3]!] : null;
}

const schemaText = () =>
  z.string().superRefine((text, ctx) => {
    const parts = splitColumns(text);
    const bad = parts.find((p) => columnOfText(p) === null);
    if (bad !== undefined) {
      const type = /^(?:"[^"]+"|[^\s"]+)\s+(\S.*)$/.exec(bad)?.[1];
      ctx.addIssue({ code: 'custom', input: text, message: `Expected 'name type, ...' with type names ${TYPE_LIST}, got the column ${JSON.stringify(bad)}${typeHint(type)}` });
    }
  });

const fieldObject = () => options({ name: name(), type: columnType(), nullable: bool().optional() }, '{ name, type, nullable? }');

export const csvSchema = () =>
  anyOf("an Arrow Schema, { name: type }, [{ name, type }] or 'name type, ...'", [
    instance<SchemaLike>('an Arrow Schema', isArrowSchema),
    entries('an object { column: type } with at least one column', columnType()),
    list(fieldObject(), 'a non-empty list of { name, type }'),
    schemaText(),
  ]).transform((s): A.Schema => {
    if (isArrowSchema(s)) return plainSchema(s);
    if (typeof s === 'string') {
      return new A.Schema(splitColumns(s).map((p) => {
        const [n, t] = columnOfText(p)!;
        return new A.Field(n, toArrow(t), true);
      }));
    }
    if (Array.isArray(s)) return new A.Schema(s.map((f) => new A.Field(f.name, toArrow(f.type), f.nullable ?? true)));
    return new A.Schema(Object.entries(s).map(([n, t]) => new A.Field(n, toArrow(t), true)));
  });

/** One character that is not a line break (quote and escape characters). */
const oneChar = (what: string) => z.string(expecting(what)).regex(/^[^\r\n]$/, expecting(what));

export const csvReadShape = {
  schema: csvSchema().optional().describe('column types: by name with a header (other columns inferred), by position without'),
  header: bool().optional(),
  delimiter: z
    .string(expecting('a delimiter (a non-empty string without quotes or line breaks)'))
    .regex(/^[^"\r\n]+$/, expecting('a delimiter (a non-empty string without quotes or line breaks)'))
    .optional(),
  quote: oneChar('one quote character').optional().describe('default "'),
  escape: oneChar('one escape character').optional().describe('default: the quote character ("" inside quotes)'),
  nullValues: z.array(z.string(expecting('a string')), expecting('a list of strings')).optional().describe("fields read as NULL; default ['']"),
  inferRows: int(0).optional().describe('rows sampled to infer column types (default 65536; 0: inferred columns are utf8)'),
  inferDates: bool().optional().describe('recognize ISO-8601 dates and timestamps when inferring (default true)'),
};

export const csvReadOptions = options(csvReadShape);

export const ndjsonReadShape = {
  schema: csvSchema().optional().describe('column types by key (other keys are left out)'),
  inferRows: int(1).optional().describe('lines sampled to infer the schema (default 65536)'),
};

export const ndjsonReadOptions = options(ndjsonReadShape);

/** The `path` of a reader: a file, glob or folder (`-`: standard input), or a non-empty list. */
export const sourcePaths = () =>
  anyOf('a path (a file, glob or folder) or a non-empty list of paths', [
    name('a file path (non-empty string)'),
    list(name('a file path (non-empty string)'), 'a non-empty list of paths'),
  ]);

/** readIpc / readParquet take no options yet; the object is still checked. */
export const ipcReadShape = {};
export const ipcReadOptions = options(ipcReadShape);
export const parquetReadShape = {};
export const parquetReadOptions = options(parquetReadShape);
