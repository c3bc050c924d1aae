/** Arguments of the window-function builders: `sum(column)`, `.rows(p, f)`, `.range(p, f)`. */
import * as z from 'zod';
import { anyNumber, anyOf, apiOnly, name } from './kit.js';

/** A frame offset before its meaning is checked (ops/window-spec parseOffset): number, bigint or text. */
export const frameOffset = anyOf("a number, a bigint, 'unbounded' or a duration such as '7d'", [anyNumber(), apiOnly(z.bigint()), z.string()]);

export const measureColumn = name('a column name (non-empty string)');
