/**
 * The result file (`bench/results/<name>.json`): machine, settings, every case with its runs,
 * the curves, what was skipped, and the derived comparisons (ratios from this one run).
 */
import type { CaseRecord } from './case.js';
import type { Machine } from './machine.js';
import type { CurveDef, Section, SuiteName } from './suites.js';
import type { DatasetSpec } from './gen/datasets.js';

export const RESULTS_SCHEMA = 'sluice-bench/1';

export interface BenchCase extends CaseRecord {
  section: Section;
  suite: SuiteName;
  variant?: string;
  curve?: { id: string; x: number; label: string };
  /** other processes' CPU while this case ran, in cores (machine busy time minus the child's) */
  othersCores?: number;
  loadAverage: { before: number[]; after: number[] };
}

export interface ResultsFile {
  schema: typeof RESULTS_SCHEMA;
  name: string;
  startedAt: string;
  finishedAt?: string;
  command: string[];
  suites: SuiteName[];
  quick: boolean;
  machine: Machine;
  settings: { threads: number; repeat: number; warmup: number; dataRoot: string; referenceData?: string };
  datasets: Array<{ dir: string; spec: DatasetSpec; files: Record<string, Partial<Record<string, string>>> }>;
  cases: BenchCase[];
  curves: CurveDef[];
  skipped: Array<{ what: string; reason: string }>;
  comparisons?: Comparison[];
}

export interface Comparison {
  suite: SuiteName;
  section: Section;
  workload: string;
  format: string;
  rows: number;
  variant?: string;
  /** case ids */
  sluice?: string;
  sluice1?: string;
  polars?: string;
  duckdb?: string;
  duckdbParquet?: string;
  ratios: { polars?: number; duckdb?: number; duckdbParquet?: number; fasterPeer?: number; speedup?: number; rssVsPolars?: number; rssVsDuckdb?: number };
  /** per peer: 'agree', 'differs (expected): why', or what differs */
  checks: Partial<Record<'polars' | 'duckdb' | 'duckdbParquet' | 'sluice1', string>>;
}
