/**
 * Paired window-function builders for tests: each call builds the engine's WindowFn AND the
 * reference's plain description (RefFn: the user's raw arguments, unparsed), so the reference
 * (window-reference.ts) interprets exactly what the user wrote, never the engine's parsed spec.
 *
 *   const cols = { a: W.sum('x').rows(6), r: W.rank() };
 *   df.window(engineOptions({ orderBy: 't', columns: cols }));
 *   referenceWindow(rows, schema, refOptions({ orderBy: 't', columns: cols }));
 */
import * as E from '../../src/expr/aggregates.js';
import type { WindowOptions } from '../../src/ops/window-spec.js';
import type { RefFn, RefOffset, RefWindowOptions } from './window-reference.js';

export class Both {
  constructor(
    readonly fn: E.WindowFn,
    readonly ref: RefFn,
  ) {}
  rows(p: RefOffset, f: RefOffset = 0): Both {
    return new Both(this.fn.rows(p, f), { ...this.ref, frame: { mode: 'rows', preceding: p, following: f } });
  }
  range(p: RefOffset, f: RefOffset = 0): Both {
    return new Both(this.fn.range(p, f), { ...this.ref, frame: { mode: 'range', preceding: p, following: f } });
  }
  groups(p: RefOffset, f: RefOffset = 0): Both {
    return new Both(this.fn.groups(p, f), { ...this.ref, frame: { mode: 'groups', preceding: p, following: f } });
  }
  minPeriods(k: number): Both {
    return new Both(this.fn.minPeriods(k), { ...this.ref, minPeriods: k });
  }
  ignoreNulls(): Both {
    return new Both(this.fn.ignoreNulls(), { ...this.ref, ignoreNulls: true });
  }
}

const col = (fn: keyof typeof E & string) => (c: string) => new Both((E[fn] as (c: string) => E.WindowFn)(c), { fn, column: c });

export const W = {
  sum: col('sum'),
  avg: col('avg'),
  min: col('min'),
  max: col('max'),
  stddev: col('stddev'),
  variance: col('variance'),
  stddevPop: col('stddevPop'),
  varPop: col('varPop'),
  countDistinct: col('countDistinct'),
  first: col('first'),
  last: col('last'),
  count: (c?: string) => new Both(E.count(c), c === undefined ? { fn: 'count' } : { fn: 'count', column: c }),
  nthValue: (c: string, n: number | bigint) => new Both(E.nthValue(c, n), { fn: 'nthValue', column: c, n }),
  lag: (c: string, n?: number | bigint, d?: unknown) =>
    new Both(E.lag(c, n, d), { fn: 'lag', column: c, ...(n !== undefined ? { n } : {}), ...(d !== undefined ? { default: d } : {}) }),
  lead: (c: string, n?: number | bigint, d?: unknown) =>
    new Both(E.lead(c, n, d), { fn: 'lead', column: c, ...(n !== undefined ? { n } : {}), ...(d !== undefined ? { default: d } : {}) }),
  rowNumber: () => new Both(E.rowNumber(), { fn: 'rowNumber' }),
  rank: () => new Both(E.rank(), { fn: 'rank' }),
  denseRank: () => new Both(E.denseRank(), { fn: 'denseRank' }),
  percentRank: () => new Both(E.percentRank(), { fn: 'percentRank' }),
  cumeDist: () => new Both(E.cumeDist(), { fn: 'cumeDist' }),
  ntile: (n: number | bigint) => new Both(E.ntile(n), { fn: 'ntile', n }),
};

export interface BothOptions {
  partitionBy?: string | string[];
  orderBy?: RefWindowOptions['orderBy'];
  columns: Record<string, Both>;
}

export function engineOptions(o: BothOptions): WindowOptions {
  const columns: Record<string, E.WindowFn> = {};
  for (const [k, v] of Object.entries(o.columns)) columns[k] = v.fn;
  return { ...(o.partitionBy !== undefined ? { partitionBy: o.partitionBy } : {}), ...(o.orderBy !== undefined ? { orderBy: o.orderBy as never } : {}), columns };
}

export function refOptions(o: BothOptions): RefWindowOptions {
  const columns: Record<string, RefFn> = {};
  for (const [k, v] of Object.entries(o.columns)) columns[k] = v.ref;
  return { ...(o.partitionBy !== undefined ? { partitionBy: o.partitionBy } : {}), ...(o.orderBy !== undefined ? { orderBy: o.orderBy } : {}), columns };
}
