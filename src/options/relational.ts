/**
 * The relational verbs' arguments and options (API.md "Relational verbs"): sort keys, groupBy
 * keys and aggregates, join options, distinct / drop names, rename mappings. Column names, key
 * types and the functions' own rules are checked against the schemas by the resolvers in
 * src/ops (sort-spec, groupby-spec, join-spec, project-spec).
 */
import * as z from 'zod';
import { isWindowFn, type WindowFn } from '../expr/aggregates.js';
import { anyOf, bool, entries, expecting, instance, list, name, oneOf, options } from './kit.js';
import { orderKey } from './window.js';

export const JOIN_HOWS = ['inner', 'left', 'right', 'full', 'semi', 'anti'] as const;

/** sort(...keys): names or { column, descending?, nulls? }, lists of them flattened. */
export const sortKeys = () => z.array(anyOf('a column name, { column, descending?, nulls? }, or a list of them', [orderKey(), z.array(orderKey(), expecting('a list of sort keys'))]));

/** groupBy(...keys), distinct(...names), drop(...names): names, lists of them flattened. */
export const columnNames = () => z.array(anyOf('a column name or a list of column names', [name(), z.array(name(), expecting('a list of column names'))]));

/** An aggregate: built with sum/count/avg/min/max/first/last/countDistinct (or its plain spec). */
const aggregate = () =>
  instance<WindowFn | { fn: string }>("an aggregate such as sum('tokens'), count() or first('ts')", (v): v is WindowFn => isWindowFn(v) || (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { fn?: unknown }).fn === 'string'));

/** agg({ name: aggregate }): may be empty after groupBy keys (the distinct keys). */
export const aggregates = () => z.record(name('an output column name'), aggregate(), expecting("an object { name: aggregate }, e.g. { n: count(), tokens: sum('tokens') }"));

const pair = () => z.tuple([name(), name()], expecting('[leftColumn, rightColumn]'));

export const joinShape = {
  on: anyOf('a column name, a non-empty list of names, or [leftColumn, rightColumn] pairs', [
    name(),
    list(anyOf('a column name or [leftColumn, rightColumn]', [name(), pair()]), 'a non-empty list of column names or [leftColumn, rightColumn] pairs'),
  ]),
  how: oneOf(JOIN_HOWS).optional(),
  suffix: name('a non-empty string').optional(),
  nullsEqual: bool().optional(),
};

export const joinOptions = options(joinShape);

/** rename({ old: 'new' }): at least one entry. */
export const renameMapping = () => entries('an object { oldName: "newName" } with at least one entry', name('a new column name (non-empty string)'));
