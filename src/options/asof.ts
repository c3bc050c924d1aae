/**
 * `left.asofJoin(right, options)` (API.md "asofJoin"): the shape of each option. What needs the
 * schemas (column names, key types, tolerance units, zone names) is checked by resolveAsof.
 */
import * as z from 'zod';
import { condition } from './args.js';
import { anyNumber, anyOf, apiOnly, bool, expecting, name, oneOf, options } from './kit.js';

const pair = () => z.tuple([name(), name()], expecting('[leftColumn, rightColumn]'));

export const asofShape = {
  on: anyOf('a column name or [leftKey, rightKey]', [name(), pair()]),
  // an empty list: no `by` columns, as without `by`
  by: anyOf('a column name or a list of column names or [leftColumn, rightColumn] pairs', [
    name(),
    z.array(anyOf('a column name or [leftColumn, rightColumn]', [name(), pair()]), expecting('a list of column names or [leftColumn, rightColumn] pairs')),
  ]).optional(),
  direction: oneOf(['backward', 'forward', 'nearest']).optional(),
  tolerance: anyOf("a number, a bigint or a duration such as '250ms', '5s', '1h'", [anyNumber(), apiOnly(z.bigint()), z.string()]).optional(),
  allowExactMatches: bool().optional(),
  condition: condition().optional(),
  how: oneOf(['left', 'inner']).optional(),
  nullsEqual: bool().optional(),
  timeZone: name("an IANA time zone name such as 'UTC' or 'Europe/Paris'").optional(),
  suffix: name('a non-empty string').optional(),
  preserveOrder: bool().optional(),
};

export const asofOptions = options(asofShape);
