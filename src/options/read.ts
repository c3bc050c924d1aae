/**
 * Options of the file sources (API.md "Engine"): `readCsv(path, options)`, and the (for now
 * empty) options of `readIpc` / `readParquet`, which still reject unknown keys.
 *
 * A CSV `schema` is given as an Arrow Schema, `{ name: type }`, `[{ name, type, nullable? }]`
 * or `'name type, ...'`, with the type names of job files and `cast` (expr/arrow-types); every
 * form is turned into an Arrow Schema here, so the reader sees one form.
 */
import * as A from 'apache-arrow';
import * as z from 'zod';
import { parseTypeName, TYPE_NAMES, typeToArrow } from '../expr/arrow-types.js';
import { anyOf, bool, describeValue, entries, expecting, instance, list, name, options } from './kit.js';

const TYPE_LIST = TYPE_NAMES.join(', ');

/** A type name such as 'int64' or 'timestamp[ms, UTC]'. */
const typeName = () =>
  z.string(expecting(`a type name (${TYPE_LIST})`)).refine((s) => parseTypeName(s) !== null, {
    error: (iss) => `Expected a type name (${TYPE_LIST}), got ${describeValue(iss.input)}`,
  });

const toArrow = (type: string): A.DataType => typeToArrow(parseTypeName(type)!);

function isArrowSchema(v: unknown): v is A.Schema {
  return v instanceof A.Schema || (typeof v === 'object' && v !== null && Array.isArray((v as A.Schema).fields) && (v as A.Schema).fields.every((f) => f && typeof f.name === 'string' && typeof f.type?.typeId === 'number'));
}

/** Splits `'a int64, ts timestamp[ms, UTC]'` at the commas outside brackets. */
function splitColumns(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/** `'name type'` → [name, type], or null. */
function columnOfText(part: string): [string, string] | null {
  const m = /^(\S+)\s+(\S.*)$/.exec(part);
  return m && parseTypeName(m[2]!) ? [m[1]!, m[2]!] : null;
}

const schemaText = () =>
  z.string().superRefine((text, ctx) => {
    const parts = splitColumns(text);
    const bad = parts.find((p) => columnOfText(p) === null);
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', input: text, message: `Expected 'name type, ...' with type names ${TYPE_LIST}, got the column ${JSON.stringify(bad)}` });
    }
  });

const fieldObject = () => options({ name: name(), type: typeName(), nullable: bool().optional() }, '{ name, type, nullable? }');

export const csvSchema = () =>
  anyOf("an Arrow Schema, { name: type }, [{ name, type }] or 'name type, ...'", [
    instance<A.Schema>('an Arrow Schema', isArrowSchema),
    entries('an object { column: type } with at least one column', typeName()),
    list(fieldObject(), 'a non-empty list of { name, type }'),
    schemaText(),
  ]).transform((s): A.Schema => {
    if (isArrowSchema(s)) return s;
    if (typeof s === 'string') {
      return new A.Schema(splitColumns(s).map((p) => {
        const [n, t] = columnOfText(p)!;
        return new A.Field(n, toArrow(t), true);
      }));
    }
    if (Array.isArray(s)) return new A.Schema(s.map((f) => new A.Field(f.name, toArrow(f.type), f.nullable ?? true)));
    return new A.Schema(Object.entries(s).map(([n, t]) => new A.Field(n, toArrow(t), true)));
  });

export const csvReadShape = {
  schema: csvSchema().optional(),
  header: bool().optional(),
  delimiter: z
    .string(expecting('a delimiter (a non-empty string without quotes or line breaks)'))
    .regex(/^[^"\r\n]+$/, expecting('a delimiter (a non-empty string without quotes or line breaks)'))
    .optional(),
};

export const csvReadOptions = options(csvReadShape);

/** readIpc / readParquet take no options yet; the object is still checked. */
export const ipcReadShape = {};
export const ipcReadOptions = options(ipcReadShape);
export const parquetReadShape = {};
export const parquetReadOptions = options(parquetReadShape);
