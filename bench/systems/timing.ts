/**
 * The timed loop every system runner shares: `warmup` untimed runs, then `repeat` timed ones;
 * before each run the previous result is dropped (`drop`) and a full GC runs, so at most one
 * result is alive and every run starts from the same memory state.
 */
import { cpuMs, fullGc } from '../proc.js';

export interface Timed<R> { runsMs: number[]; cpuMs: number[]; last: R }

export async function timeRuns<R>(
  opts: { warmup: number; repeat: number; label: string },
  run: () => Promise<R> | R,
  drop: (r: R) => Promise<void> | void,
): Promise<Timed<R>> {
  const runsMs: number[] = []; const cpus: number[] = [];
  let last: R | undefined; let has = false;
  const total = opts.warmup + opts.repeat;
  for (let i = 0; i < total; i++) {
    if (has) { await drop(last!); last = undefined; has = false; }
    await fullGc();
    const c0 = cpuMs(); const t0 = performance.now();
    last = await run(); has = true;
    const ms = performance.now() - t0; const c = cpuMs() - c0;
    if (i >= opts.warmup) { runsMs.push(ms); cpus.push(c); }
    process.stderr.write(`  ${opts.label}: run ${i + 1}/${total}${i < opts.warmup ? ' (warmup)' : ''} ${(ms / 1000).toFixed(3)} s\n`);
  }
  return { runsMs, cpuMs: cpus, last: last as R };
}
