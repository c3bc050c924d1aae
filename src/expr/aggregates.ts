/**
 * Public window-function builders (API.md "window"):
 * aggregates `sum count avg min max stddev variance stddevPop varPop countDistinct`, value
 * functions `first last nthValue`, offset functions `lag lead`, ranking functions
 * `rowNumber rank denseRank percentRank cumeDist ntile`.
 *
 * Each returns an immutable `WindowFn` whose `spec` is plain data (no bigint, no class
 * instance: bigint offsets and arguments are decimal strings), so it survives structured clone
 * and JSON. Modifiers return a new WindowFn: `.rows(p, f = 0)` / `.range(p, f = 0)` /
 * `.groups(p, f = 0)` set the frame start = current - p, end = current + f (aggregates and value
 * functions only); `.minPeriods(k)` (aggregates and value functions); `.ignoreNulls()` (value and
 * offset functions). Argument types are checked here (PlanError BAD_OPTION, src/options/frame.ts
 * and ops/window-spec checkFnShape), their meaning by parseOffset (INVALID_OFFSET, ...);
 * everything that needs the schema (types, units, order keys, defaults) is checked by
 * `resolveWindow`.
 */
import { PlanError, show } from '../errors.js';
import { parseLiteral } from '../ops/window-literal.js';
import { frameOffset, measureColumn } from '../options/frame.js';
import { checkApi } from '../options/kit.js';
import {
  checkFnShape,
  checkFrameOrder,
  checkMinPeriods,
  describeFrame,
  parseFnInteger,
  parseOffset,
  type FrameMode,
  type FrameSpec,
  type OffsetInput,
  type WindowFnName,
  type WindowFnSpec,
} from '../ops/window-spec.js';

export type { WindowFnSpec, FrameSpec, OffsetSpec, OffsetInput, WindowFnName } from '../ops/window-spec.js';

export class WindowFn {
  readonly spec: WindowFnSpec;

  constructor(spec: WindowFnSpec) {
    this.spec = deepFreeze(spec);
    Object.freeze(this);
  }

  /** ROWS BETWEEN p PRECEDING AND f FOLLOWING (negative values cross the current row). */
  rows(preceding: OffsetInput, following: OffsetInput = 0): WindowFn {
    return this.withFrame('rows', preceding, following);
  }

  /** RANGE BETWEEN p PRECEDING AND f FOLLOWING over the single order key. */
  range(preceding: OffsetInput, following: OffsetInput = 0): WindowFn {
    return this.withFrame('range', preceding, following);
  }

  /** GROUPS BETWEEN p PRECEDING AND f FOLLOWING: offsets count peer groups. */
  groups(preceding: OffsetInput, following: OffsetInput = 0): WindowFn {
    return this.withFrame('groups', preceding, following);
  }

  /** NULL when the frame holds fewer than k non-NULL values of the measure (rows, for count()). */
  minPeriods(k: number): WindowFn {
    return this.with({ minPeriods: checkMinPeriods(k, `${this.what()}.minPeriods()`) });
  }

  /** first/last/nthValue/lag/lead skip NULL values. */
  ignoreNulls(ignore: boolean = true): WindowFn {
    if (typeof ignore !== 'boolean') throw new PlanError('BAD_OPTION', `${this.what()}.ignoreNulls(): Expected a boolean, got ${show(ignore)} (${typeof ignore})`, {});
    const next: WindowFnSpec = { ...this.spec };
    if (ignore) next.ignoreNulls = true;
    else delete next.ignoreNulls;
    checkFnShape(next, this.what());
    return new WindowFn(next);
  }

  toString(): string {
    return `${this.spec.fn}(${this.spec.column ?? ''}) ${describeFrame(this.spec.frame)}`;
  }

  toJSON(): WindowFnSpec {
    return this.spec;
  }

  private what(): string {
    return `${this.spec.fn}(${this.spec.column === null ? '' : show(this.spec.column)})`;
  }

  private with(changes: Partial<WindowFnSpec>): WindowFn {
    const next: WindowFnSpec = { ...this.spec, ...changes };
    checkFnShape(next, this.what());
    return new WindowFn(next);
  }

  private withFrame(mode: FrameMode, preceding: OffsetInput, following: OffsetInput): WindowFn {
    const what = `${this.what()}.${mode}()`;
    checkApi(frameOffset, preceding, what, 'preceding');
    checkApi(frameOffset, following, what, 'following');
    const frame: FrameSpec = {
      mode,
      preceding: parseOffset(preceding, mode, `${what} preceding`),
      following: parseOffset(following, mode, `${what} following`),
    };
    checkFrameOrder(frame, what);
    return this.with({ frame });
  }
}

function columnArg(fn: WindowFnName, column: unknown): string {
  return checkApi(measureColumn, column, `${fn}()`, 'column');
}

function build(fn: WindowFnName, column: string | null, extra: Partial<WindowFnSpec> = {}): WindowFn {
  const spec: WindowFnSpec = { fn, column, frame: null, ...extra };
  checkFnShape(spec, `${fn}()`);
  return new WindowFn(spec);
}

const agg = (fn: WindowFnName) => (column: string): WindowFn => build(fn, columnArg(fn, column));

export const sum = agg('sum');
/** `count()` counts rows; `count(column)` counts non-NULL values. */
export function count(column?: string): WindowFn {
  return build('count', column === undefined ? null : columnArg('count', column));
}
export const avg = agg('avg');
export const min = agg('min');
export const max = agg('max');
/** Sample standard deviation (n - 1 in the denominator; NULL for one value). */
export const stddev = agg('stddev');
/** Sample variance (n - 1 in the denominator; NULL for one value). */
export const variance = agg('variance');
/** Population standard deviation (n in the denominator; 0 for one value). */
export const stddevPop = agg('stddevPop');
/** Population variance (n in the denominator; 0 for one value). */
export const varPop = agg('varPop');
/** Number of distinct non-NULL values in the frame. */
export const countDistinct = agg('countDistinct');
/** The frame's first value (NULL included unless `.ignoreNulls()`). */
export const first = agg('first');
/** The frame's last value (NULL included unless `.ignoreNulls()`). */
export const last = agg('last');

/** The frame's n-th value (n from 1); NULL when the frame is shorter. */
export function nthValue(column: string, n: number | bigint): WindowFn {
  return build('nthValue', columnArg('nthValue', column), { n: parseFnInteger(n, 'nthValue() argument n') });
}

function offsetFn(fn: 'lag' | 'lead', column: string, n: number | bigint, dflt: unknown): WindowFn {
  const extra: Partial<WindowFnSpec> = { n: parseFnInteger(n, `${fn}() argument n`) };
  if (dflt !== undefined) extra.default = parseLiteral(dflt, `${fn}() default`);
  return build(fn, columnArg(fn, column), extra);
}

/** The value n rows before the current row in the partition order (`dflt` beyond the partition's start). */
export function lag(column: string, n: number | bigint = 1, dflt?: unknown): WindowFn {
  return offsetFn('lag', column, n, dflt);
}
/** The value n rows after the current row in the partition order (`dflt` beyond the partition's end). */
export function lead(column: string, n: number | bigint = 1, dflt?: unknown): WindowFn {
  return offsetFn('lead', column, n, dflt);
}

/** 1, 2, 3, … in the partition order. */
export const rowNumber = (): WindowFn => build('rowNumber', null);
/** 1 + the number of rows before the current row's peer group (gaps after ties). */
export const rank = (): WindowFn => build('rank', null);
/** 1 + the number of peer groups before the current row's (no gaps). */
export const denseRank = (): WindowFn => build('denseRank', null);
/** (rank - 1) / (rows - 1); 0 for a one-row partition. */
export const percentRank = (): WindowFn => build('percentRank', null);
/** Rows up to the current row's last peer / rows. */
export const cumeDist = (): WindowFn => build('cumeDist', null);
/** Bucket 1..n of the partition order; remainder rows go to the first buckets. */
export function ntile(n: number | bigint): WindowFn {
  return build('ntile', null, { n: parseFnInteger(n, 'ntile() argument n') });
}

export function isWindowFn(v: unknown): v is WindowFn {
  return v instanceof WindowFn;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
