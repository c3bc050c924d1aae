/**
 * A result's columns the workers wrote in shared memory go back to the system soon after the
 * caller lets the result go: the workers collect their views at once when a run hands out large
 * shared outputs (src/worker/collect-task). Before, an idle worker kept them mapped until it
 * next collected on its own, seconds later or in the next run (window6: VmHWM 6.1 GB over three
 * runs against 3.9 GB for one). A child process, so its RSS is the engine's alone.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../support/shared-release-child.ts', import.meta.url));

function runChild(rows: number, waitMs: number, job?: 'sort' | 'explode'): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CHILD, String(rows), String(waitMs), ...(job ? [job] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (x: Buffer) => (out += x.toString()));
    p.stderr.on('data', (x: Buffer) => (err += x.toString()));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('shared outputs after the result is let go', () => {
  it('are unmapped within a second, every run, and the engine prints nothing', async () => {
    const { code, out, err } = await runChild(2_000_000, 1000);
    expect(err).toBe('');
    expect(code).toBe(0);
    const { runs } = JSON.parse(out) as { runs: Array<{ outBytes: number; held: number; after: number }> };
    expect(runs).toHaveLength(3);
    for (const r of runs) {
      expect(r.outBytes).toBeGreaterThanOrEqual(120 * 2 ** 20);
      // Most of the output's pages gone: what stays is the engine's pooled buffers and the heap.
      expect(r.held - r.after).toBeGreaterThan(0.75 * r.outBytes);
    }
  }, 120_000);

  it('of a sort (its tasks build their outputs in shared memory) do not pile up run after run', async () => {
    const { code, out, err } = await runChild(6_000_000, 300, 'sort');
    expect(err).toBe('');
    expect(code).toBe(0);
    const { runs } = JSON.parse(out) as { runs: Array<{ outBytes: number; held: number; after: number; hwm: number }> };
    expect(runs).toHaveLength(3);
    expect(runs[0]!.outBytes).toBeGreaterThanOrEqual(130 * 2 ** 20);
    // The workers let go of their views at each run's end: the third run's peak is the first's,
    // not the first's plus two results the workers still held (measured without: +2 results).
    expect(runs[2]!.hwm - runs[0]!.hwm).toBeLessThan(0.4 * runs[0]!.outBytes);
  }, 120_000);

  it('of an explode (row-local tasks build a collected result in shared memory) are written once and do not pile up', async () => {
    const { code, out, err } = await runChild(1_500_000, 300, 'explode');
    expect(err).toBe('');
    expect(code).toBe(0);
    const { runs, before } = JSON.parse(out) as { runs: Array<{ outBytes: number; held: number; after: number; hwm: number }>; before: number };
    expect(runs).toHaveLength(3);
    expect(runs[0]!.outBytes).toBeGreaterThanOrEqual(190 * 2 ** 20);
    // The result once, not copied again in the workers (each column was, when the task's shared
    // buffers were not known as its own: +0.9x the output measured), plus loans and heaps.
    expect(runs[0]!.hwm - before).toBeLessThan(1.6 * runs[0]!.outBytes);
    expect(runs[2]!.hwm - runs[0]!.hwm).toBeLessThan(0.4 * runs[0]!.outBytes);
  }, 120_000);
});
