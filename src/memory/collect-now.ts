/**
 * A full, synchronous collection of the calling thread's heap, without `gc()` (there only when
 * the host process started with --expose-gc): v8.queryObjects (Node 20.13+) searches the heap
 * after a full collection; searching for instances of a class never instantiated leaves just the
 * collection. Where it is missing, the collector is only nudged (src/memory/collector-nudge).
 *
 * Why a worker needs it: a nudge starts incremental marking, and an idle worker finishes it only
 * when V8 schedules it, seconds later or not before the next run: window6 (10M rows, 2.4 GB of
 * output columns the workers wrote) then held the last run's columns into the next one (VmHWM
 * 6.1 GB over three runs, 3.9 GB for one); collected at once, 3.97 GB over three.
 */
import * as v8 from 'node:v8';
import { nudgeCollector } from './collector-nudge.js';

/** Never instantiated: the search finds nothing, cheaply. */
class NeverInstantiated {}

type QueryObjects = (ctor: new () => object, options?: { format: 'count' }) => number;
const queryObjects = (v8 as { queryObjects?: QueryObjects }).queryObjects;

/** Whether collectNow collects at once here (false: it only nudges). */
export const collectsAtOnce = typeof queryObjects === 'function';

let warned = false;

export function collectNow(): void {
  if (!queryObjects) return nudgeCollector();
  if (warned) {
    queryObjects(NeverInstantiated, { format: 'count' });
    return;
  }
  // Its first call emits an ExperimentalWarning for the thread: a library's housekeeping must
  // not print on the host's stderr, so that one warning (and only it) is held back.
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!text.includes('queryObjects')) (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    queryObjects(NeverInstantiated, { format: 'count' });
  } finally {
    process.emitWarning = emit;
    warned = true;
  }
}
