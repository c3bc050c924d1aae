/**
 * Schemas of positional arguments shared by several methods: expressions, file paths,
 * AbortSignals. (Options objects have one file each in this folder.)
 */
import * as z from 'zod';
import { Expr } from '../expr/builders.js';
import { anyOf, instance, int, name, options } from './kit.js';

/** An expression or a column name / SQL text (`Expr | string`). */
export const exprLike = (what = 'an expression (col(...), expr(...)) or a column name') =>
  anyOf(what, [name(what), instance<Expr>(what, (v): v is Expr => v instanceof Expr)]);

/** The arguments of select(): expressions or column names. */
export const exprList = () => z.array(exprLike());

/** A condition: an expression or SQL text. */
export const condition = () => exprLike('an expression or an SQL condition string');

export const filePath = () => name('a file path (non-empty string)');

export const rowCount = () => int(0);

/** `{ name: expression }`, at least one entry. */
export const columnExprs = () =>
  z.record(name('a column name'), exprLike(), { error: (iss) => `Expected an object { name: expression }, got ${String(iss.input === null ? 'null' : typeof iss.input)}` });

function isAbortSignal(v: unknown): v is AbortSignal {
  return v instanceof AbortSignal || (typeof v === 'object' && v !== null && typeof (v as AbortSignal).aborted === 'boolean' && typeof (v as AbortSignal).addEventListener === 'function');
}

export const abortSignal = () => instance<AbortSignal>('an AbortSignal', isAbortSignal);

/** `{ signal }`: the options of collect(), execute() and stream(). */
export const actionShape = { signal: abortSignal().optional() };
export const actionOptions = options(actionShape);
