/**
 * Public window-aggregate builders: `sum(col)`, `count(col?)`, `avg`, `min`, `max`.
 *
 * Each returns an immutable `WindowFn` whose `spec` is plain data (no bigint, no class
 * instance: bigint offsets are decimal strings), so it survives structured clone and JSON.
 * `.rows(p, f = 0)` / `.range(p, f = 0)` return a new WindowFn with the frame
 * start = current - p, end = current + f. Argument types are checked here (PlanError
 * BAD_OPTION, src/options/frame.ts), their meaning by parseOffset (INVALID_OFFSET, ...);
 * everything that needs the schema (types, units, order keys) is checked by `resolveWindow`.
 */
import { show } from '../errors.js';
import { frameOffset, measureColumn } from '../options/frame.js';
import { checkApi } from '../options/kit.js';
import {
  checkFrameOrder,
  describeFrame,
  parseOffset,
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

  toString(): string {
    return `${this.spec.fn}(${this.spec.column ?? ''}) ${describeFrame(this.spec.frame)}`;
  }

  toJSON(): WindowFnSpec {
    return this.spec;
  }

  private withFrame(mode: 'rows' | 'range', preceding: OffsetInput, following: OffsetInput): WindowFn {
    const what = `${this.spec.fn}(${this.spec.column === null ? '' : show(this.spec.column)}).${mode}()`;
    checkApi(frameOffset, preceding, what, 'preceding');
    checkApi(frameOffset, following, what, 'following');
    const frame: FrameSpec = {
      mode,
      preceding: parseOffset(preceding, mode, `${what} preceding`),
      following: parseOffset(following, mode, `${what} following`),
    };
    checkFrameOrder(frame, what);
    return new WindowFn({ fn: this.spec.fn, column: this.spec.column, frame });
  }
}

function build(fn: WindowFnName, column: unknown, optional = false): WindowFn {
  if (column === undefined && optional) return new WindowFn({ fn, column: null, frame: null });
  return new WindowFn({ fn, column: checkApi(measureColumn, column, `${fn}()`, 'column'), frame: null });
}

export function sum(column: string): WindowFn {
  return build('sum', column);
}
/** `count()` counts rows; `count(column)` counts non-NULL values. */
export function count(column?: string): WindowFn {
  return build('count', column, true);
}
export function avg(column: string): WindowFn {
  return build('avg', column);
}
export function min(column: string): WindowFn {
  return build('min', column);
}
export function max(column: string): WindowFn {
  return build('max', column);
}

// ---- group-by aggregates (API.md "Relational verbs") ------------------------------------------
// first / last / countDistinct as groupBy().agg() takes them. Branch `winfn` adds the same
// exported functions as window functions too; until it is merged they are only aggregates
// (window() rejects them).

/** The group's (frame's) first value in input order, NULL included. */
export function first(column: string): WindowFn {
  return build('first', column);
}
/** The group's (frame's) last value in input order, NULL included. */
export function last(column: string): WindowFn {
  return build('last', column);
}
/** Number of distinct non-NULL values. */
export function countDistinct(column: string): WindowFn {
  return build('countDistinct', column);
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
