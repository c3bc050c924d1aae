/**
 * A SharedArrayBuffer's memory goes back to the system only once every thread that saw it has
 * collected its view, and an idle worker never collects: the direct outputs of a run (the
 * result's columns, written in place by the workers) stayed mapped after the caller had let the
 * result go, until the worker's next run allocated enough (window6 10M rows, three runs in one
 * process: RSS after each 4.0 -> 6.6 -> 6.7 GB, VmHWM 9.4 GB; with this task 4.0 -> 4.1 -> 4.1
 * and 4.5 GB). Node gives workers no gc(), but an ArrayBuffer allocation
 * past V8's external-memory step (64 MiB since the isolate's last collection, Node 20) starts
 * a full collection; the allocation itself is never touched, so it maps no page.
 */
/** Bytes allocated to pass V8's external-memory step (kExternalAllocationSoftLimit, 64 MiB) with a margin. */
const EXTERNAL_STEP = 65 * 1024 * 1024;

/** Only workers are sent it (ThreadExecutor.collectShared; threads: 0 never asks). */
export function runCollectTask(): null {
  void new ArrayBuffer(EXTERNAL_STEP);
  return null;
}
