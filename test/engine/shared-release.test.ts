/**
 * A result's columns the workers wrote in shared memory: once the caller lets the result go,
 * they serve the next run (the buffer pool takes them back, src/memory/buffer-pool handOut)
 * rather than piling up, and engine.close() gives them back to the system; the workers collect
 * their views at once when a run hands out large shared outputs (src/worker/collect-task).
 * Before that, an idle worker kept them mapped until it next collected on its own, seconds
 * later or in the next run (window6: VmHWM 6.1 GB over three runs against 3.9 GB for one).
 * A child process, so its RSS is the engine's alone.
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
  it('serve the next run (pooled, not piled up), are unmapped once the engine closes, and the engine prints nothing', async () => {
    const { code, out, err } = await runChild(2_000_000, 1000);
    expect(err).toBe('');
    expect(code).toBe(0);
    const { runs, closed } = JSON.parse(out) as { runs: Array<{ outBytes: number; held: number; after: number }>; closed: number };
    expect(runs).toHaveLength(3);
    for (const r of runs) expect(r.outBytes).toBeGreaterThanOrEqual(120 * 2 ** 20);
    // A result let go returns to the buffer pool (src/memory/buffer-pool handOut) and the next
    // run's result takes the same memory: RSS with a result held does not grow run after run.
    for (const r of runs.slice(1)) expect(r.held - runs[0]!.held).toBeLessThan(0.25 * runs[0]!.outBytes);
    // Closing the engine empties the pool: most of the output's pages go back to the system.
    expect(runs[2]!.held - closed).toBeGreaterThan(0.75 * runs[2]!.outBytes);
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
