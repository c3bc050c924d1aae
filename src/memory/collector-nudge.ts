/**
 * Makes the calling thread's V8 collect soon, without `gc()` (there only when the host process
 * started with --expose-gc): an ArrayBuffer allocation past V8's external-memory step (64 MiB
 * since the isolate's last collection, Node 20) starts a full collection (incremental marking,
 * finished as the thread runs on); the allocation itself is never touched, so it maps no page.
 *
 * Why it matters: a SharedArrayBuffer's memory goes back to the system only once every thread
 * that saw it has collected it, V8 does not count mapped SharedArrayBuffers towards its own
 * collection heuristics, and a thread that allocates little on its own heap may not collect for
 * a long time (src/worker/collect-task, src/memory/buffer-pool).
 */

/** Bytes allocated to pass V8's external-memory step (kExternalAllocationSoftLimit, 64 MiB) with a margin. */
const EXTERNAL_STEP = 65 * 1024 * 1024;

export function nudgeCollector(): void {
  void new ArrayBuffer(EXTERNAL_STEP);
}
