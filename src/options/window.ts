/**
 * `df.window(options)` (API.md "window"): the shape of each option. Column names, key types,
 * frame units and the functions' own rules are checked against the schema by resolveWindow.
 */
import { isWindowFn, type WindowFn } from '../expr/aggregates.js';
import * as z from 'zod';
import { anyOf, bool, entries, expecting, instance, list, name, oneOf, options } from './kit.js';

// An empty list partitions nothing, as no partitionBy.
const names = () => anyOf('a column name or a list of column names', [name(), z.array(name(), expecting('a list of column names'))]);

const orderItem = () => options({ column: name(), descending: bool().optional(), nulls: oneOf(['first', 'last']).optional() }, '{ column, descending?, nulls? }');
export const orderKey = () => anyOf('a column name or { column, descending?, nulls? }', [name(), orderItem()]);

export const orderBy = () =>
  anyOf('a column name, { column, descending?, nulls? }, or a non-empty list of them', [name(), orderItem(), list(orderKey(), 'a non-empty list of order keys')]);

/** A window function: built with sum/count/avg/min/max (…), or its plain spec ({ fn, column, frame }). */
const windowFn = () =>
  instance<WindowFn | { fn: string }>("a window function such as sum('tokens').rows(6)", (v): v is WindowFn => isWindowFn(v) || (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { fn?: unknown }).fn === 'string'));

export const windowShape = {
  partitionBy: names().optional(),
  orderBy: orderBy().optional(),
  columns: entries("an object { name: window function } with at least one column, e.g. { tokens_7d: sum('tokens').rows(6) }", windowFn()),
  preserveOrder: bool().optional(),
};

export const windowOptions = options(windowShape);
