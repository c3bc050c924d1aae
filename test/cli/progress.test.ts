/**
 * Progress bars, rendered from a synthetic event sequence on a fake terminal: one line per
 * phase in phase order, bars with fixed totals, rows/s and ETA, cut to the terminal width, and
 * erased before anything else prints (a tiny terminal emulator checks the final screen).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress, renderBars, type ProgressEvent } from '../../src/cli/progress.js';
import { screen } from './terminal.js';

class FakeTerminal extends Writable {
  text = '';
  isTTY = true;
  columns = 80;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** A run's events as the engine sends them: each phase's total known from its first event. */
const EVENTS: Array<[number, ProgressEvent]> = [
  [0, { phase: 'read', done: 0, total: 1000, rows: 0 }],
  [1000, { phase: 'read', done: 250, total: 1000, rows: 250_000 }],
  [1000, { phase: 'partition', done: 1, total: 8 }],
  [2000, { phase: 'read', done: 500, total: 1000, rows: 500_000 }],
  [2000, { phase: 'spill', done: 4096, total: 0 }],
  [2500, { phase: 'kernel', done: 0, total: 8 }],
  [3000, { phase: 'partition', done: 8, total: 8 }],
];

describe('progress bars', () => {
  it('one line per phase in phase order, with totals, rows/s and ETA', () => {
    const term = new FakeTerminal();
    let now = 0;
    const p = createProgress(term, true, { now: () => now, intervalMs: 0 });
    for (const [t, e] of EVENTS) {
      now = t;
      p.onProgress(e);
    }
    const shown = screen(term.text);
    expect(shown.map((l) => l.trim().split(/\s+/)[0])).toEqual(['read', 'partition', 'kernel', 'spill']);
    const read = shown[0]!;
    expect(read).toMatch(/ 50% +500\/1k +500k rows +250k rows\/s +ETA 1s$/); // 2 s left at t=2000, drawn at t=3000
    expect(shown[1]).toMatch(/100% +8\/8 +done$/);
    expect(shown[2]).toMatch(/ 0% +0\/8$/);
    expect(shown[3]).toMatch(/spill +4\.1k$/); // no total: a count, no bar
    for (const l of shown) expect(l.length).toBeLessThanOrEqual(79);
  });

  it('clear() erases the bars before other output, which then stays on screen', () => {
    const term = new FakeTerminal();
    let now = 0;
    const p = createProgress(term, true, { now: () => now, intervalMs: 0 });
    for (const [t, e] of EVENTS) {
      now = t;
      p.onProgress(e);
    }
    p.clear();
    term.write('│ table │\n3 rows (2 shown), 1 column\n');
    expect(screen(term.text)).toEqual(['│ table │', '3 rows (2 shown), 1 column']);
    // bars come back below the output with the next event, and stop() removes them for good
    now = 4000;
    p.onProgress({ phase: 'write', done: 1, total: 2 });
    expect(screen(term.text).slice(0, 2)).toEqual(['│ table │', '3 rows (2 shown), 1 column']);
    expect(screen(term.text).length).toBeGreaterThan(2);
    p.stop();
    p.onProgress({ phase: 'write', done: 2, total: 2 });
    expect(screen(term.text)).toEqual(['│ table │', '3 rows (2 shown), 1 column']);
  });

  it('is silent when not enabled (not a terminal, or --quiet)', () => {
    const term = new FakeTerminal();
    const p = createProgress(term, false);
    for (const [, e] of EVENTS) p.onProgress(e);
    p.stop();
    expect(term.text).toBe('');
  });

  it('renderBars cuts lines to the width and copes with phases it does not know', () => {
    const lines = renderBars(
      [
        { phase: 'write', done: 5, total: 10, rows: 5e6, startedAt: 0, updatedAt: 2000 },
        { phase: 'merge', done: 3, total: 3, rows: undefined, startedAt: 0, updatedAt: 1 },
      ],
      2000,
      40,
    );
    expect(lines[0]!.startsWith(' write')).toBe(true);
    expect(lines[1]!.startsWith(' merge')).toBe(true);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
  });
});
