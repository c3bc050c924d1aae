/**
 * A SharedArrayBuffer's memory goes back to the system only once every thread that saw it has
 * collected its view, and an idle worker never collects: the direct outputs of a run (the
 * result's columns, written in place by the workers) stayed mapped after the caller had let the
 * result go, until the worker's next run allocated enough (window6 10M rows, three runs in one
 * process: RSS after each 4.0 -> 6.6 -> 6.7 GB, VmHWM 9.4 GB; with this task 4.0 -> 4.1 -> 4.1
 * and 4.5 GB). Node gives workers no gc(): see src/memory/collector-nudge.
 */
import { nudgeCollector } from '../memory/collector-nudge.js';

/** Only workers are sent it (ThreadExecutor.collectShared; threads: 0 never asks). */
export function runCollectTask(): null {
  nudgeCollector();
  return null;
}
