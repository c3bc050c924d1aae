/** `df.explode(column, options)` (API.md "explode"). Layout and name rules: ops/explode-spec.ts. */
import { exprLike } from './args.js';
import { anyOf, bool, list, name, options } from './kit.js';

export const explodeShape = {
  outputColumn: anyOf('a column name or a non-empty list of column names', [name(), list(name(), 'a non-empty list of column names')]).optional(),
  ignoreEmptyAndNull: bool().optional(),
  ordinality: name().optional(),
};

export const explodeOptions = options(explodeShape);

/** The first argument: one input or a non-empty list of inputs. */
export const explodeInputs = () =>
  anyOf('a column name, an expression, or a non-empty list of them', [exprLike(), list(exprLike(), 'a non-empty list of columns or expressions')]);
