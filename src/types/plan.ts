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
  | { kind: 'asofJoin'; left: PlanNode; right: PlanNode; options: unknown };

export interface ExplodeOptions {
  outputColumn?: string | string[];
  ignoreEmptyAndNull?: boolean;
  ordinality?: string;
}

export type Phase = 'read' | 'partition' | 'sort' | 'kernel' | 'spill' | 'write';

export interface Progress {
  phase: Phase;
  done: number;
  total: number;
}

export interface RunStats {
  rowsIn: number;
  rowsOut: number;
  threads: number;
  partitions: number;
  spilledBytes: number;
  spillFiles: number;
  peakTrackedBytes: number;
  phases: Partial<Record<Phase | string, number>>;
}
