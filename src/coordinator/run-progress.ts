/**
 * A run's progress: one counter per phase for the whole run (both sides of a join, every
 * blocking stage and every scan add to the same bar), sent to `onProgress` as
 * `{ phase, done, total, rows }`.
 *
 * Promises the events keep (API.md "onProgress"): per phase, `done` never decreases and never
 * exceeds a non-zero `total`; a total, once sent, never changes; when a phase ends with a known
 * total, its last event has `done === total`.
 *
 * Totals come from the plan before any row is read (ProgressTotals, see execute.ts
 * `progressTotals`). A phase whose total is not known up front and that only one stage of the
 * plan feeds may `announce` it when that stage learns it (a kernel's rows after ingest) and
 * before it reports anything. Should the rows ever run past a total (a source whose metadata
 * undercounts), the phase goes on without a total rather than report more than 100%.
 */
import type { Phase, Progress } from '../types/plan.js';

/** The phases that count rows (spill counts bytes, see RunContext.spilled). */
export type RowPhase = Exclude<Phase, 'spill'>;

/** What the plan says of a phase before the run: its rows (null: unknown) and how many stages feed it. */
export interface PhaseTotal {
  rows: number | null;
  stages: number;
}

export type ProgressTotals = Record<RowPhase, PhaseTotal>;

interface PhaseState {
  done: number;
  total: number;
  /** The total may still be announced (unknown up front, one stage, nothing sent yet). */
  open: boolean;
  sent: boolean;
  /** Rows already counted that the next adds count again (see recount). */
  counted: number;
}

export const NO_TOTALS: ProgressTotals = {
  read: { rows: null, stages: 0 },
  partition: { rows: null, stages: 0 },
  sort: { rows: null, stages: 0 },
  kernel: { rows: null, stages: 0 },
  write: { rows: null, stages: 0 },
};

export class RunProgress {
  private readonly phases = new Map<RowPhase, PhaseState>();

  constructor(private readonly emit: ((p: Progress) => void) | undefined) {}

  /** Sets the totals the plan knows; called once, before the run reads anything. */
  plan(totals: ProgressTotals): void {
    for (const phase of Object.keys(totals) as RowPhase[]) {
      const t = totals[phase];
      this.phases.set(phase, { done: 0, total: t.rows ?? 0, open: t.rows === null && t.stages === 1, sent: false, counted: 0 });
    }
  }

  private state(phase: RowPhase): PhaseState {
    let s = this.phases.get(phase);
    if (!s) {
      s = { done: 0, total: 0, open: false, sent: false, counted: 0 };
      this.phases.set(phase, s);
    }
    return s;
  }

  /** The one stage feeding `phase` now knows its rows: they become the total (if still allowed). */
  announce(phase: RowPhase, rows: number): void {
    const s = this.state(phase);
    if (!s.open || s.sent || s.done > 0) return;
    s.open = false;
    s.total = rows;
  }

  /** Sends `done: 0` once, so the bar (and its total) shows before the first rows are done. */
  start(phase: RowPhase): void {
    const s = this.state(phase);
    s.open = false;
    if (!s.sent && s.total > 0) this.send(phase, s);
  }

  /**
   * The first `rows` rows the next adds report were counted already (a stage that gives its
   * work over to another, which starts from the first row again): they move nothing.
   */
  recount(phase: RowPhase, rows: number): void {
    this.state(phase).counted += rows;
  }

  /** `rows` more rows of `phase` are done. */
  add(phase: RowPhase, rows: number): void {
    const s = this.state(phase);
    const again = Math.min(s.counted, Math.max(0, rows));
    s.counted -= again;
    rows -= again;
    if (rows <= 0) return;
    s.open = false;
    s.done += rows;
    if (s.total > 0 && s.done > s.total) s.total = 0;
    this.send(phase, s);
  }

  private send(phase: RowPhase, s: PhaseState): void {
    s.sent = true;
    this.emit?.({ phase, done: s.done, total: s.total, rows: s.done });
  }
}
