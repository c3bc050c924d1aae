/**
 * Progress bars on stderr, fed by the Engine's `onProgress` events `{ phase, done, total,
 * rows? }`: one line per phase (read, partition, sort, kernel, spill, write, in that order,
 * each shown from its first event), with a bar and percentage when the total is known, the
 * rows per second when events carry row counts, and an ETA from the rate so far.
 *
 * Only on a terminal and without --quiet; otherwise every call is a no-op. Lines are cut to
 * the terminal width (a wrapped line would break the redraw) and redrawn at most every
 * `intervalMs`. `clear()` erases them before anything else is printed (they come back with the
 * next event); `stop()` erases them for good, e.g. once data starts flowing to the same
 * terminal.
 *
 * `renderBars` is the pure part: state and clock in, lines out (tested on synthetic events).
 */
import type { Progress } from '../index.js';

/** A progress event; `rows` (rows processed so far) is optional. */
export type ProgressEvent = Progress & { rows?: number };

export interface ProgressReporter {
  onProgress(p: ProgressEvent): void;
  /** Erase the bars; they are redrawn on the next event. */
  clear(): void;
  /** Erase the bars and ignore every later event. */
  stop(): void;
}

export const PHASES = ['read', 'partition', 'sort', 'kernel', 'spill', 'write'] as const;

export interface PhaseState {
  phase: string;
  done: number;
  total: number;
  rows: number | undefined;
  /** clock time of the first event and of the latest one */
  startedAt: number;
  updatedAt: number;
}

const silent: ProgressReporter = { onProgress() {}, clear() {}, stop() {} };

function compact(n: number): string {
  if (!Number.isFinite(n)) return '?';
  const a = Math.abs(n);
  if (a < 1000) return String(Math.round(n));
  for (const [div, suffix] of [
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ] as const) {
    if (a >= div) {
      const v = n / div;
      return `${v >= 100 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, '')}${suffix}`;
    }
  }
  return String(n);
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function phaseRank(phase: string): number {
  const i = (PHASES as readonly string[]).indexOf(phase);
  return i < 0 ? PHASES.length : i;
}

/** One line per phase, in phase order, each at most `width` characters. */
export function renderBars(states: Iterable<PhaseState>, now: number, width: number): string[] {
  const list = [...states].sort((a, b) => phaseRank(a.phase) - phaseRank(b.phase));
  const barWidth = Math.max(10, Math.min(30, width - 60));
  return list.map((s) => {
    const known = Number.isFinite(s.total) && s.total > 0;
    const elapsed = Math.max(0, (s.updatedAt - s.startedAt) / 1000);
    const parts: string[] = [` ${s.phase.padEnd(9)}`];
    const finished = known && s.done >= s.total;
    if (known) {
      const frac = Math.min(1, Math.max(0, s.done / s.total));
      const filled = Math.round(frac * barWidth);
      parts.push(`${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}`, `${String(Math.floor(frac * 100)).padStart(3)}%`);
      parts.push(`${compact(s.done)}/${compact(s.total)}`);
    } else parts.push(compact(s.done));
    if (s.rows !== undefined) {
      parts.push(`${compact(s.rows)} rows`);
      if (elapsed > 0) parts.push(`${compact(s.rows / elapsed)} rows/s`);
    }
    if (finished) parts.push('done');
    else if (known && s.done > 0 && elapsed > 0) {
      const sinceUpdate = Math.max(0, now - s.updatedAt);
      const left = (elapsed * 1000 * (s.total - s.done)) / s.done - sinceUpdate;
      parts.push(`ETA ${duration(left)}`);
    }
    const line = parts.join('  ');
    return line.length > width ? line.slice(0, Math.max(1, width - 1)) : line;
  });
}

export interface ProgressOptions {
  /** clock in ms (default performance.now) */
  now?: () => number;
  /** shortest time between redraws (default 100 ms; 0 redraws on every event) */
  intervalMs?: number;
}

export function createProgress(stream: NodeJS.WritableStream, enabled: boolean, opts: ProgressOptions = {}): ProgressReporter {
  if (!enabled) return silent;
  const now = opts.now ?? (() => performance.now());
  const interval = opts.intervalMs ?? 100;
  const states = new Map<string, PhaseState>();
  let drawn = 0;
  let lastDraw = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const width = (): number => {
    const cols = (stream as { columns?: number }).columns;
    return Math.max(20, (typeof cols === 'number' && cols > 0 ? cols : 80) - 1);
  };
  const erase = (): string => (drawn > 0 ? `\x1b[${drawn}A\r\x1b[0J` : '');
  const draw = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    lastDraw = now();
    const lines = renderBars(states.values(), lastDraw, width());
    stream.write(`${erase()}${lines.map((l) => `${l}\n`).join('')}`);
    drawn = lines.length;
  };
  const clear = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (drawn > 0) stream.write(erase());
    drawn = 0;
  };

  return {
    onProgress(p) {
      if (stopped) return;
      const t = now();
      const s = states.get(p.phase);
      if (s === undefined) states.set(p.phase, { phase: p.phase, done: p.done, total: p.total, rows: p.rows, startedAt: t, updatedAt: t });
      else {
        s.done = p.done;
        s.total = p.total;
        if (p.rows !== undefined) s.rows = p.rows;
        s.updatedAt = t;
      }
      if (t - lastDraw >= interval) draw();
      else if (timer === undefined) {
        timer = setTimeout(draw, Math.max(0, interval - (t - lastDraw)));
        timer.unref();
      }
    },
    clear,
    stop() {
      clear();
      stopped = true;
    },
  };
}
