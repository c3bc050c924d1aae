/**
 * Logical plan nodes: what the user asked for, as data. Built by DataFrame methods, checked and
 * turned into physical stages by the planner (src/coordinator/planner.ts). Sources are opaque
 * handles owned by the coordinator.
 */
export type PlanNode =
  | { kind: 'source'; source: unknown }
  | { kind: 'select'; input: PlanNode; items: unknown[] }
  | { kind: 'withColumns'; input: PlanNode; columns: Array<[string, unknown]> }
  | { kind: 'filter'; input: PlanNode; predicate: unknown }
  | { kind: 'limit'; input: PlanNode; n: number }
  | { kind: 'explode'; input: PlanNode; columns: unknown[]; options: ExplodeOptions }
  | { kind: 'window'; input: PlanNode; options: unknown }
  | { kind: 'asofJoin'; left: PlanNode; right: PlanNode; options: unknown }
  | { kind: 'sort'; input: PlanNode; keys: unknown[] }
  | { kind: 'groupBy'; input: PlanNode; keys: string[]; aggs: Array<[string, unknown]> }
  | { kind: 'distinct'; input: PlanNode; columns: string[] }
  | { kind: 'join'; left: PlanNode; right: PlanNode; options: unknown }
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
