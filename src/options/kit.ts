/**
 * The one mechanism that checks options objects and arguments (API.md "Errors"), for the
 * public API and for job files alike.
 *
 * Each options object is ONE zod schema (src/options/*.ts), built from the helpers below so
 * that every failure reads "Expected X, got Y". `checkApi` runs a schema on an API argument and
 * throws `PlanError` `UNKNOWN_OPTION` (an unknown key: named, with the known keys and the
 * closest one) or `BAD_OPTION` (a wrong type or value); `firstProblem` gives the same problem
 * with its path, which the job-file loader prints as a JSON path (`$.steps[2].rows: …`).
 *
 * Values only the API can hold (functions, AbortSignals, bigints, Expr and Arrow objects) are
 * wrapped in `apiOnly`: JSON never contains them, and the published JSON Schema of job files
 * leaves them out (see jsonSchemaOf).
 */
import damerauLevenshtein from 'damerau-levenshtein';
import * as z from 'zod';
import { PlanError } from '../errors.js';

// ---- describing values and suggesting names ----------------------------------------------------

/** A value as error messages show it: `42 (number)`, `"yes" (string)`, `an array [1, 2]`. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (undefined)';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return `${JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v)} (string)`;
    case 'number':
      return `${Object.is(v, -0) ? '-0' : String(v)} (number)`;
    case 'bigint':
      return `${v}n (bigint)`;
    case 'boolean':
      return `${v} (boolean)`;
    case 'function':
      return 'a function';
    case 'symbol':
      return `${String(v)} (symbol)`;
  }
  if (Array.isArray(v)) return `an array ${shortJson(v)}`;
  const ctor = (v as object).constructor;
  if (ctor && ctor !== Object && typeof ctor.name === 'string' && ctor.name !== '') return `a ${ctor.name}`;
  return `an object ${shortJson(v)}`;
}

function shortJson(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const squash = (s: string): string => s.toLowerCase().replace(/[_\-\s]/g, '');

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (Damerau), as cargo
 * and rustc do: `cvs` is one typo away from `csv`, not two.
 */
export function editDistance(a: string, b: string): number {
  return damerauLevenshtein(a, b).steps;
}

/**
 * The candidate closest to `word` (edit distance, ignoring case, `_` and `-`), or null when
 * none is close enough to be a plausible typo: at most about a third of the longer word may be
 * wrong (at least one letter), as in difflib and cargo, so `foo` does not suggest `bool`. A
 * candidate that starts with the word (or the word with it) is suggested too, from three
 * letters on: `desc` suggests `descending`.
 */
export function suggest(word: string, candidates: readonly string[]): string | null {
  if (candidates.length === 0) return null;
  const w = squash(word);
  const exact = candidates.find((c) => squash(c) === w);
  if (exact !== undefined) return exact;
  let best = -1;
  let bestDistance = Infinity;
  candidates.forEach((c, i) => {
    const d = editDistance(w, squash(c));
    if (d < bestDistance) [best, bestDistance] = [i, d];
  });
  const limit = Math.max(1, Math.round(Math.max(w.length, squash(candidates[best]!).length) / 3));
  // (replacing every letter of a word is no typo of it)
  if (bestDistance <= limit && bestDistance < w.length) return candidates[best]!;
  const prefixed = candidates.find((c) => {
    const s = squash(c);
    return Math.min(s.length, w.length) >= 3 && (s.startsWith(w) || w.startsWith(s));
  });
  return prefixed ?? null;
}

const quote = (s: string): string => `\`${s}\``;

// ---- schema helpers ---------------------------------------------------------------------------

/** Error parameter for a schema or check: "Expected <what>, got <value>". */
export function expecting(what: string): { error: (iss: { input?: unknown }) => string } {
  return { error: (iss) => `Expected ${what}, got ${describeValue(iss.input)}` };
}

const apiOnlyRegistry = z.registry<{ apiOnly: true }>();

/** Marks a schema whose values cannot occur in JSON: left out of the published JSON Schema. */
export function apiOnly<T extends z.ZodType>(schema: T): T {
  apiOnlyRegistry.add(schema, { apiOnly: true });
  return schema;
}

function isApiOnly(schema: z.core.$ZodType): boolean {
  return apiOnlyRegistry.has(schema);
}

export const bool = (what = 'true or false') => z.boolean(expecting(what));

/** A non-empty string (a column name by default). */
export const name = (what = 'a column name (non-empty string)') => z.string(expecting(what)).min(1, expecting(what));

/** An integer from `min` (and up to `max`). */
export function int(min: number, max = Number.MAX_SAFE_INTEGER) {
  const what = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  return z.number(expecting(what)).int(expecting(what)).min(min, expecting(what)).max(max, expecting(what));
}

/** Any JS number, NaN and infinities included (the resolvers give those their own meaning or error). */
export function anyNumber(what = 'a number') {
  return anyOf(what, [z.number(expecting(what)), apiOnly(z.custom<number>((v) => typeof v === 'number', expecting(what)))]);
}

/** One of fixed strings; a near miss gets "did you mean". */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const list = values.map((v) => JSON.stringify(v)).join(', ');
  return z.enum(values, {
    error: (iss) => {
      const hint = typeof iss.input === 'string' ? suggest(iss.input, values) : null;
      return `Expected one of ${list}, got ${describeValue(iss.input)}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''}`;
    },
  });
}

/** A union whose failure reads "Expected <what>" unless one branch clearly matched (firstProblem). */
export function anyOf<const T extends readonly [z.ZodType, ...z.ZodType[]]>(what: string, options: T) {
  return z.union(options, expecting(what));
}

/** A value recognized by a guard (classes, functions): API-only. */
export function instance<T>(what: string, guard: (v: unknown) => v is T) {
  return apiOnly(z.custom<T>((v) => guard(v), expecting(what)));
}

/** An options object: unknown keys are errors (UNKNOWN_OPTION, with "did you mean"). */
export function options<S extends z.core.$ZodLooseShape>(shape: S, what = 'an options object') {
  // Only the type is worded here; unknown keys are worded where the known keys are at hand.
  return z.strictObject(shape, { error: (iss) => (iss.code === 'invalid_type' ? `Expected ${what}, got ${describeValue(iss.input)}` : undefined) });
}

/** A non-empty list. */
export function list<T extends z.ZodType>(item: T, what: string) {
  return z.array(item, expecting(what)).min(1, expecting(what));
}

/** A { key: value } object with at least one entry. */
export function entries<V extends z.ZodType>(what: string, value: V, key = name('a non-empty name')) {
  return z.record(key, value, expecting(what)).refine((o) => Object.keys(o).length > 0, expecting(what));
}

// ---- turning issues into one problem ----------------------------------------------------------

export interface OptionProblem {
  code: 'UNKNOWN_OPTION' | 'BAD_OPTION';
  /** Keys and indexes from the checked value down to the culprit. */
  path: PropertyKey[];
  message: string;
  /** The unknown key, with the keys known there and the closest one. */
  unknown?: { key: string; known: string[]; suggestion: string | null };
}

type Flavor = 'option' | 'key';

function knownKeys(inst: unknown): string[] {
  const shape = (inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * Messages for issues no helper worded: unknown keys, unknown discriminators, anything else.
 * The keys known where an unknown key was found are recorded in `known` (by that key).
 */
function fallbackErrors(flavor: Flavor, knownAt: Map<string, string[]>): z.core.$ZodErrorMap {
  return (iss) => {
    if (iss.code === 'unrecognized_keys') {
      const known = knownKeys(iss.inst);
      const key = iss.keys[0]!;
      if (!knownAt.has(key)) knownAt.set(key, known);
      const hint = suggest(key, known);
      // API messages quote names as code (`partitionBy`), job-file messages as JSON ("partitionBy").
      const q = flavor === 'option' ? quote : (s: string) => JSON.stringify(s);
      return `unknown ${flavor} ${q(key)}${hint ? `; did you mean ${q(hint)}?` : '.'} Known ${flavor}s: ${known.join(', ') || '(none)'}`;
    }
    if (iss.code === 'invalid_union' && iss.note === 'No matching discriminator') {
      const d = iss as { options?: unknown[]; discriminator?: string };
      const values = (d.options ?? []).map(String);
      const input = typeof iss.input === 'object' && iss.input !== null && d.discriminator ? (iss.input as Record<string, unknown>)[d.discriminator] : iss.input;
      const hint = typeof input === 'string' ? suggest(input, values) : null;
      return `Expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(input)}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''}`;
    }
    if (iss.code === 'invalid_type') return `Expected ${article(iss.expected)}, got ${describeValue(iss.input)}`;
    return undefined;
  };
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

/** A branch that failed only because the value was of another type altogether. */
function mismatchedType(issues: readonly z.core.$ZodIssue[]): boolean {
  return issues.every((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'custom' || (i.code === 'invalid_union' && i.errors.every(mismatchedType))));
}

/** An unknown key first: it is usually the typo behind the other issues (a missing key). */
function preferred(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
}

/** The issue to report: through unions, the branch the value's type matched. */
function pick(issue: z.core.$ZodIssue, base: PropertyKey[]): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const matched = issue.errors.filter((branch) => branch.length > 0 && !mismatchedType(branch));
    if (matched.length >= 1) return pick(preferred(matched[0]!), path);
  }
  return { issue, path };
}

/** Runs `schema` on `value`: the parsed value, or the first problem. */
export function firstProblem<T extends z.ZodType>(schema: T, value: unknown, flavor: Flavor): { ok: true; value: z.output<T> } | { ok: false; problem: OptionProblem } {
  const knownAt = new Map<string, string[]>();
  const r = schema.safeParse(value, { error: fallbackErrors(flavor, knownAt) });
  if (r.success) return { ok: true, value: r.data };
  const { issue, path } = pick(preferred(r.error.issues), []);
  const problem: OptionProblem = { code: issue.code === 'unrecognized_keys' ? 'UNKNOWN_OPTION' : 'BAD_OPTION', path, message: issue.message };
  if (issue.code === 'unrecognized_keys') {
    const known = knownAt.get(issue.keys[0]!) ?? [];
    problem.unknown = { key: issue.keys[0]!, known, suggestion: suggest(issue.keys[0]!, known) };
  }
  return { ok: false, problem };
}

/** `orderBy[0].nulls` */
export function pathText(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) {
    if (typeof p === 'number') s += `[${p}]`;
    else if (typeof p === 'string' && /^[A-Za-z_$][\w$]*$/.test(p)) s += s === '' ? p : `.${p}`;
    else s += `[${JSON.stringify(String(p))}]`;
  }
  return s;
}

/** `$.steps[2].columns.tokens_7d.rows`: a path in a JSON document (job files). */
export function jsonPath(path: readonly PropertyKey[]): string {
  const rest = pathText(path);
  return rest === '' ? '$' : rest.startsWith('[') ? `$${rest}` : `$.${rest}`;
}

/**
 * Checks an API argument; returns the parsed value (a fresh copy of plain objects and arrays,
 * so later changes by the caller cannot reach the plan). `where` names the call, e.g.
 * `window()`; `param` names a positional argument (its problems are reported under that name).
 */
export function checkApi<T extends z.ZodType>(schema: T, value: unknown, where: string, param?: string): z.output<T> {
  const r = firstProblem(schema, value, 'option');
  if (r.ok) return r.value;
  const { problem } = r;
  const path = param === undefined ? problem.path : [param, ...problem.path];
  const at = path.length > 0 ? `${quote(pathText(path))}: ` : '';
  const details: Record<string, unknown> = { option: pathText(path) };
  if (problem.unknown) {
    const unknownPath = pathText([...path, problem.unknown.key]);
    details.option = unknownPath;
    details.known = problem.unknown.known;
    if (problem.unknown.suggestion) details.suggestion = problem.unknown.suggestion;
  }
  throw new PlanError(problem.code, `${where}: ${at}${problem.message}`, details);
}

// ---- JSON Schema -------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** JSON Schema (draft 2020-12) of a schema, without its API-only parts. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, Json> {
  const raw = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      if (isApiOnly(ctx.zodSchema)) (ctx.jsonSchema as Record<string, unknown>)['x-api-only'] = true;
    },
  }) as Json;
  return strip(raw) as Record<string, Json>;
}

function isMarked(j: Json): boolean {
  return typeof j === 'object' && j !== null && !Array.isArray(j) && j['x-api-only'] === true;
}

/** Drops API-only branches of anyOf/oneOf (a union left with one branch is that branch). */
function strip(j: Json): Json {
  if (Array.isArray(j)) return j.map(strip);
  if (typeof j !== 'object' || j === null) return j;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(j)) {
    if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) {
      const kept = v.filter((x) => !isMarked(x)).map(strip);
      if (kept.length === 1 && typeof kept[0] === 'object' && kept[0] !== null && !Array.isArray(kept[0])) Object.assign(out, kept[0]);
      else out[k] = kept;
    } else if (k === 'properties' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v).filter(([, x]) => !isMarked(x)).map(([pk, x]) => [pk, strip(x)]));
    } else out[k] = strip(v);
  }
  return out;
}
