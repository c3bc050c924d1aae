/**
 * Progress bars on stderr (cli-progress), fed by the Engine's `onProgress` callback: one bar per
 * phase (read, partition, sort, kernel, spill, write), created when the phase first reports.
 * Only when stderr is a TTY and --quiet is not given; otherwise every call is a no-op.
 */
import cliProgress from 'cli-progress';
import type { Progress } from '../index.js';

export interface ProgressReporter {
  onProgress(p: Progress): void;
  /** Remove the bars (before printing results, or at the end). Reporting may resume after. */
  stop(): void;
}

const silent: ProgressReporter = { onProgress() {}, stop() {} };

export function createProgress(stream: NodeJS.WritableStream, enabled: boolean): ProgressReporter {
  if (!enabled) return silent;
  let multi: cliProgress.MultiBar | null = null;
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    onProgress(p) {
      if (!Number.isFinite(p.total) || p.total <= 0) return;
      multi ??= new cliProgress.MultiBar(
        {
          stream,
          clearOnComplete: true,
          hideCursor: true,
          format: ' {phase} |{bar}| {percentage}% {value}/{total}',
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      );
      let bar = bars.get(p.phase);
      if (!bar) {
        bar = multi.create(p.total, 0, { phase: p.phase.padEnd(9) });
        bars.set(p.phase, bar);
      }
      if (bar.getTotal() !== p.total) bar.setTotal(p.total);
      bar.update(Math.min(p.done, p.total));
    },
    stop() {
      if (multi) multi.stop();
      multi = null;
      bars.clear();
    },
  };
}
