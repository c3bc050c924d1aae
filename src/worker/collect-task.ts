/**
 * A SharedArrayBuffer's memory goes back to the system only once every thread that saw it has
 * collected its view, and an idle worker never collects: the direct outputs of a run (the
 * result's columns, written in place by the workers) stayed mapped after the caller had let the
 * result go, until the worker's next run allocated enough. After a run whose outputs are large
 * the workers collect at once (src/memory/collect-now: one full collection, milliseconds, while the
 * caller looks at the result); after a small one they are only nudged (a full collection for a
 * few MB would cost more than the memory).
 */
import { collectNow } from '../memory/collect-now.js';
import { nudgeCollector } from '../memory/collector-nudge.js';
import type { CollectTask } from '../types/tasks.js';

/** Only workers are sent it (ThreadExecutor.collectShared; threads: 0 never asks). */
export async function runCollectTask(task: CollectTask): Promise<null> {
  if (task.full) await collectNow();
  else nudgeCollector();
  return null;
}
