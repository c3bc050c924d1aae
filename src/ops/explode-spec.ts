/**
 * Plan validation and output layout of `explode` (API.md "explode"); pure, no data.
 *
 * Rules, checked in this order (each a PlanError, raised before any row is read):
 *   1. at least one input (EXPLODE_NO_INPUT); a direct input names a schema column
 *      (EXPLODE_BAD_INPUT).
 *   2. one input: LIST, LARGE LIST, FIXED-SIZE LIST or MAP; several inputs: all list kinds
 *      (EXPLODE_NOT_LIST).
 *   3. no column referenced directly twice (EXPLODE_DUPLICATE_INPUT).
 *   4. names: a MAP needs exactly two (key, value) names in `outputColumn` (EXPLODE_MAP_NAMES);
 *      otherwise exactly one per input (EXPLODE_NAME_COUNT), or, when omitted, each output takes
 *      its input's name (column name or the expression's SQL text). Names are non-empty
 *      strings (EXPLODE_NAME_EMPTY), unique among outputs and ordinality
 *      (EXPLODE_NAME_DUPLICATE), and distinct from every remaining column, i.e. every schema
 *      column except the directly referenced inputs, which are replaced (EXPLODE_NAME_CLASH).
 *
 * Layout: schema columns in order, a direct input replaced in place by its output(s) (a MAP by
 * key then value); then the outputs of computed inputs, in input order (the columns they read
 * stay). The ordinality column, if asked, is inserted right after the LAST exploded output
 * column in that layout (so after all outputs when any input is computed; between a direct
 * output and the following column otherwise).
 *
 * Types: exploded outputs are the element type (MAP: key and value types), always nullable
 * (the all-empty row gives NULL); ordinality is int32, nullable unless `ignoreEmptyAndNull`.
 * Complexity: O(columns + inputs).
 */
import { PlanError } from '../errors.js';
import { typeToString } from '../types/column.js';
import type { FieldDesc, TypeDesc } from '../types/column.js';

export interface ExplodeInputSpec {
  /** A plain column reference (a name, or `col(name)` without alias): replaced in place. */
  direct: boolean;
  /** Schema index of the referenced column when direct, else null. */
  columnIndex: number | null;
  /** Column name (direct) or the expression's name (alias or SQL text). */
  name: string;
  type: TypeDesc;
}

export type ExplodeInputKind = 'list' | 'largeList' | 'fixedSizeList' | 'map';

/** Where an output column comes from. */
export type ExplodeSource =
  /** an input column, repeated for each output row of its input row (gathered by parent). */
  | { kind: 'column'; column: number }
  /** list input `input`'s elements. */
  | { kind: 'element'; input: number }
  /** MAP input `input`'s keys or values. */
  | { kind: 'mapKey'; input: number }
  | { kind: 'mapValue'; input: number }
  | { kind: 'ordinality' };

export interface ResolvedExplode {
  /** Output schema. */
  schema: FieldDesc[];
  /** One per output column, in output order. */
  sources: ExplodeSource[];
  /** Per input: its kind and its name (for EXPLODE_LENGTH_MISMATCH messages). */
  inputKinds: ExplodeInputKind[];
  inputNames: string[];
  ignoreEmptyAndNull: boolean;
  /** Name of the ordinality column, or null. */
  ordinality: string | null;
}

const LIST_KINDS = new Set(['list', 'largeList', 'fixedSizeList']);

export function resolveExplode(
  inputs: ExplodeInputSpec[],
  outputColumn: string | string[] | undefined,
  ordinality: string | undefined,
  ignoreEmptyAndNull: boolean,
  schema: FieldDesc[],
): ResolvedExplode {
  // 1. inputs exist and direct references are real columns.
  if (inputs.length === 0) throw new PlanError('EXPLODE_NO_INPUT', 'explode: expected at least one column or expression, got none');
  inputs.forEach((inp, i) => {
    if (inp.direct && (inp.columnIndex === null || !Number.isInteger(inp.columnIndex) || inp.columnIndex < 0 || inp.columnIndex >= schema.length)) {
      throw new PlanError('EXPLODE_BAD_INPUT', `explode: input ${i} (${inp.name}) is a direct reference without a valid column index (${String(inp.columnIndex)})`, {
        column: inp.name,
      });
    }
  });

  // 2. types.
  const multi = inputs.length > 1;
  for (const inp of inputs) {
    const k = inp.type.kind;
    if (LIST_KINDS.has(k) || (!multi && k === 'map')) continue;
    const expected = multi ? 'a LIST (list, largeList or fixedSizeList) in a multi-input explode' : 'a LIST or MAP';
    throw new PlanError('EXPLODE_NOT_LIST', `explode: input ${inp.name} has type ${typeToString(inp.type)}; expected ${expected}`, {
      column: inp.name,
      type: typeToString(inp.type),
    });
  }
  const isMap = !multi && inputs[0].type.kind === 'map';

  // 3. duplicate direct inputs.
  const directAt = new Map<number, number>(); // column index -> input index
  inputs.forEach((inp, i) => {
    if (!inp.direct) return;
    const c = inp.columnIndex as number;
    const prev = directAt.get(c);
    if (prev !== undefined) {
      throw new PlanError('EXPLODE_DUPLICATE_INPUT', `explode: column ${schema[c].name} is referenced directly more than once (inputs ${prev} and ${i})`, {
        column: schema[c].name,
      });
    }
    directAt.set(c, i);
  });

  // 4. names.
  const names = outputNames(inputs, outputColumn, isMap);
  const seen = new Set<string>();
  for (const nm of names) {
    if (seen.has(nm)) throw new PlanError('EXPLODE_NAME_DUPLICATE', `explode: output name ${JSON.stringify(nm)} is given more than once`, { column: nm });
    seen.add(nm);
  }
  const remaining = new Set<string>();
  schema.forEach((f, c) => {
    if (!directAt.has(c)) remaining.add(f.name);
  });
  for (const nm of names) {
    if (remaining.has(nm)) {
      throw new PlanError('EXPLODE_NAME_CLASH', `explode: output name ${JSON.stringify(nm)} clashes with an existing column; choose another name in outputColumn`, {
        column: nm,
      });
    }
  }
  let ordName: string | null = null;
  if (ordinality !== undefined) {
    checkName(ordinality, 'ordinality');
    if (seen.has(ordinality)) {
      throw new PlanError('EXPLODE_NAME_DUPLICATE', `explode: ordinality name ${JSON.stringify(ordinality)} is also an output name`, { column: ordinality });
    }
    if (remaining.has(ordinality)) {
      throw new PlanError('EXPLODE_NAME_CLASH', `explode: ordinality name ${JSON.stringify(ordinality)} clashes with an existing column`, { column: ordinality });
    }
    ordName = ordinality;
  }

  // 5. layout.
  const outSchema: FieldDesc[] = [];
  const sources: ExplodeSource[] = [];
  let lastExploded = -1;
  const emit = (i: number, firstName: number): void => {
    const t = inputs[i].type;
    if (t.kind === 'map') {
      const entries = t.child.type;
      if (entries.kind !== 'struct' || entries.children.length !== 2) {
        throw new PlanError('EXPLODE_NOT_LIST', `explode: MAP input ${inputs[i].name} has no key/value entries struct`, { column: inputs[i].name });
      }
      outSchema.push({ name: names[firstName], type: entries.children[0].type, nullable: true });
      sources.push({ kind: 'mapKey', input: i });
      outSchema.push({ name: names[firstName + 1], type: entries.children[1].type, nullable: true });
      sources.push({ kind: 'mapValue', input: i });
    } else if (t.kind === 'list' || t.kind === 'largeList' || t.kind === 'fixedSizeList') {
      outSchema.push({ name: names[firstName], type: t.child.type, nullable: true });
      sources.push({ kind: 'element', input: i });
    }
    lastExploded = outSchema.length - 1;
  };
  schema.forEach((f, c) => {
    const i = directAt.get(c);
    if (i === undefined) {
      outSchema.push(f);
      sources.push({ kind: 'column', column: c });
    } else emit(i, i);
  });
  inputs.forEach((inp, i) => {
    if (!inp.direct) emit(i, i);
  });
  if (ordName !== null) {
    outSchema.splice(lastExploded + 1, 0, { name: ordName, type: { kind: 'int', bits: 32, signed: true }, nullable: !ignoreEmptyAndNull });
    sources.splice(lastExploded + 1, 0, { kind: 'ordinality' });
  }

  return {
    schema: outSchema,
    sources,
    inputKinds: inputs.map((inp) => inp.type.kind as ExplodeInputKind),
    inputNames: inputs.map((inp) => inp.name),
    ignoreEmptyAndNull,
    ordinality: ordName,
  };
}

/** One name per input (MAP: key and value names), validated non-empty. */
function outputNames(inputs: ExplodeInputSpec[], outputColumn: string | string[] | undefined, isMap: boolean): string[] {
  const want = isMap ? 2 : inputs.length;
  let names: string[];
  if (outputColumn === undefined) {
    if (isMap) {
      throw new PlanError('EXPLODE_MAP_NAMES', `explode: MAP input ${inputs[0].name} gives key and value columns; pass their two names in outputColumn`, {
        column: inputs[0].name,
      });
    }
    names = inputs.map((inp) => inp.name);
  } else {
    names = typeof outputColumn === 'string' ? [outputColumn] : Array.isArray(outputColumn) ? outputColumn.slice() : [];
    if (!Array.isArray(outputColumn) && typeof outputColumn !== 'string') {
      throw new PlanError('EXPLODE_NAME_COUNT', `explode: outputColumn must be a string or an array of strings, got ${typeof outputColumn}`);
    }
    if (names.length !== want) {
      if (isMap) {
        throw new PlanError('EXPLODE_MAP_NAMES', `explode: MAP input ${inputs[0].name} needs 2 names in outputColumn (key, value), got ${names.length}`, {
          column: inputs[0].name,
        });
      }
      throw new PlanError('EXPLODE_NAME_COUNT', `explode: outputColumn must give exactly one name per input: ${want} input(s), ${names.length} name(s)`, {
        column: inputs.map((inp) => inp.name).join(', '),
      });
    }
  }
  names.forEach((nm) => checkName(nm, 'output'));
  return names;
}

function checkName(nm: unknown, what: string): asserts nm is string {
  if (typeof nm !== 'string' || nm.length === 0) {
    throw new PlanError('EXPLODE_NAME_EMPTY', `explode: ${what} column names must be non-empty strings, got ${typeof nm === 'string' ? '""' : String(nm)}`);
  }
}
