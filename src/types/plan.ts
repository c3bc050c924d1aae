/**
 * Logical plan nodes: what the user asked for, as data. Built by DataFrame methods (which
 * check the options' shapes), checked against the schemas and turned into physical stages by
 * the planner (src/coordinator/planner.ts). Sources are handles owned by the coordinator.
 */
import type { Source } from '../coordinator/sources.js';
import type { Expr } from '../expr/builders.js';
import type { AsofOptions } from '../ops/asof-spec.js';
import type { AggregateInput } from '../ops/groupby-spec.js';
import type { JoinOptions } from '../ops/join-spec.js';
import type { SortKeyInput } from '../ops/sort-spec.js';
import type { WindowOptions } from '../ops/window-spec.js';

/** An expression, or a column name (a condition's string is SQL text: see toPredicateNode). */
export type ExprInput = Expr | string;

export type PlanNode =
  | { kind: 'source'; source: Source }
  | { kind: 'select'; input: PlanNode; items: ExprInput[] }
  | { kind: 'withColumns'; input: PlanNode; columns: Array<[string, ExprInput]> }
  | { kind: 'filter'; input: PlanNode; predicate: ExprInput }
  | { kind: 'limit'; input: PlanNode; n: number }
  | { kind: 'explode'; input: PlanNode; columns: ExprInput[]; options: ExplodeOptions }
  | { kind: 'window'; input: PlanNode; options: WindowOptions }
  | { kind: 'asofJoin'; left: PlanNode; right: PlanNode; options: AsofOptions }
  | { kind: 'sort'; input: PlanNode; keys: SortKeyInput[] }
  | { kind: 'groupBy'; input: PlanNode; keys: string[]; aggs: Array<[string, AggregateInput]> }
  | { kind: 'distinct'; input: PlanNode; columns: string[] }
  | { kind: 'join'; left: PlanNode; right: PlanNode; options: JoinOptions }
  | { kind: 'rename'; input: PlanNode; mapping: Array<[string, string]> }
  | { kind: 'drop'; input: PlanNode; columns: string[] }
  | { kind: 'union'; inputs: PlanNode[] };

export interface ExplodeOptions {
  outputColumn?: string | string[];
  ignoreEmptyAndNull?: boolean;
  ordinality?: string;
}

export type Phase = 'read' | 'partition' | 'sort' | 'kernel' | 'spill' | 'write';

/** `total` is 0 when it is not known up front; `rows`, when given, counts rows done. */
export interface Progress {
  phase: Phase;
  done: number;
  total: number;
  rows?: number;
}

export interface RunStats {
  rowsIn: number;
  rowsOut: number;
  threads: number;
  partitions: number;
  spilledBytes: number;
  spillFiles: number;
  peakTrackedBytes: number;
  /** Bytes tasks allocated beyond the memory they were lent (0 when Sluice's estimates held). */
  overflowBytes: number;
  wallMs: number;
  /** Wall-clock milliseconds per phase; the phases never overlap, so they add up to wallMs. */
  phases: Partial<Record<Phase | 'assemble' | 'other', number>>;
  /** CPU milliseconds per task kind, summed over threads. */
  cpuMs: Partial<Record<string, number>>;
}
