/**
 * A full collection of the calling thread's heap now, without `gc()` (there only when the host
 * process started with --expose-gc): vm.measureMemory in eager mode collects at once to measure
 * (one full collection: 8-10 ms in a test worker with a small heap; v8.queryObjects, the other way in, collects
 * until nothing more goes, 170 ms a call in a worker after a run). It resolves once the heap is
 * marked; the dead shared buffers' memory goes back within milliseconds after.
 *
 * Why a worker needs it: a nudge (src/memory/collector-nudge) starts incremental marking, and an
 * idle worker finishes it only when V8 schedules it, seconds later or not before the next run:
 * window6 (10M rows, 2.4 GB of output columns the workers wrote) then held the last run's
 * columns into the next one (VmHWM 6.1 GB over three runs, 3.9 GB for one).
 */
import { measureMemory } from 'node:vm';

let warned = false;

export async function collectNow(): Promise<void> {
  const measured = warned ? eager() : quietly(eager);
  warned = true;
  await measured;
}

const eager = (): Promise<unknown> => measureMemory({ mode: 'summary', execution: 'eager' });

/**
 * `start()` without the ExperimentalWarning its first call emits for the thread: a library's
 * housekeeping must not print on the host's stderr (that one warning only is held back).
 */
function quietly<T>(start: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!text.includes('measureMemory')) (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return start();
  } finally {
    process.emitWarning = emit;
  }
}
