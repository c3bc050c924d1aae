/**
 * Worker entry (piscina `filename`): dispatches a task by kind. Every failure is returned as a
 * plain error envelope, since an Error's class and `code` do not survive the thread boundary.
 * The same function runs inline on the main thread for `threads: 0`.
 * Each task runs inside its scratch loan (./scratch): begun before, ended (and its use
 * reported) after, on success and failure alike, so no view of the loan outlives the task.
 */
import { Piscina } from 'piscina';
import { toEnvelope } from '../errors.js';
import type { Task, TaskReply } from '../types/tasks.js';
import { runAggPartialTask } from './agg-partial-task.js';
import { runAssembleSparseTask, runAssembleTask } from './assemble-task.js';
import { runAsofTask } from './asof-task.js';
import { runCollectTask } from './collect-task.js';
import { runDenseAggTask } from './dense-agg-task.js';
import { runFaultTask } from './fault-task.js';
import { runGroupByTask, runWindowGroupByTask } from './groupby-task.js';
import { runInterleaveTask } from './interleave-task.js';
import { runJoinBuildTask } from './join-build-task.js';
import { runJoinProbeTask } from './join-probe-task.js';
import { runJoinRowStoreTask } from './join-row-store-task.js';
import { runJoinTask } from './join-task.js';
import { runPartitionTask } from './partition-task.js';
import { runRouteTask } from './route-task.js';
import { runRowLocalTask } from './rowlocal-task.js';
import { beginScratch, endScratch } from './scratch.js';
import { primeMallocThreshold } from '../memory/malloc-threshold.js';
import { runSortSampleTask, runSortTask } from './sort-task.js';
import { runWindowSuffixTask, runWindowTask } from './window-task.js';

// In the background of a worker's start (see ../memory/malloc-threshold: the threshold is the
// process's, so the first worker's does it; the others' map and unmap 32 MiB for nothing).
if (Piscina.isWorkerThread) primeMallocThreshold().catch(() => {});

async function runTask(task: Task): Promise<unknown> {
  switch (task.kind) {
    case 'partition':
      return runPartitionTask(task);
    case 'route':
      return runRouteTask(task);
    case 'window':
      return runWindowTask(task);
    case 'windowSuffix':
      return runWindowSuffixTask(task);
    case 'asof':
      return runAsofTask(task);
    case 'assemble':
      return runAssembleTask(task);
    case 'rowlocal':
      return runRowLocalTask(task);
    case 'fault':
      return runFaultTask(task);
    case 'collect':
      return runCollectTask(task);
    case 'interleave':
      return runInterleaveTask(task);
    case 'sort':
      return runSortTask(task);
    case 'sortSample':
      return runSortSampleTask(task);
    case 'groupBy':
      return runGroupByTask(task);
    case 'windowGroupBy':
      return runWindowGroupByTask(task);
    case 'aggPartial':
      return runAggPartialTask(task);
    case 'denseAgg':
      return runDenseAggTask(task);
    case 'join':
      return runJoinTask(task);
    case 'joinBuild':
      return runJoinBuildTask(task);
    case 'joinProbe':
      return runJoinProbeTask(task);
    case 'joinRowStore':
      return runJoinRowStoreTask(task);
    case 'assembleSparse':
      return runAssembleSparseTask(task);
  }
}

/** This thread has moved a result: V8's assumption is gone for good, and copying gains nothing. */
let detached = false;

/**
 * Whether a reply's buffers are moved. A group's results (the assembled rows of a group-by or
 * distinct, a whole-input aggregate's partials) are copied to the main thread rather than moved
 * when they are no bigger than the task's `copyUpTo` (RunLimits.copyBytes). Moving detaches the buffers, and V8 compiles a
 * thread's typed-array code assuming no ArrayBuffer of the thread was ever detached: the first
 * detach throws all of it away (a group-by moves its first result at the end of its first run:
 * 232 recompilations in the second run, 1.5x the third's time) and what is compiled after it runs
 * slower for good (window1 15% slower after one). Copying costs a memcpy a side; the worker's
 * originals go with its next collection. Other results (row-local batches, join and sort
 * outputs) are always moved: a worker must keep nothing of a streaming job's batches
 * (src/columns/arena). 10M rows, A/B in three rounds, second runs: groupby-100k 464-468 ->
 * 297-337 ms (4 MiB then), distinct 1042-1095 -> 806-826 ms and groupby-5m 916-1025 -> 768-848 ms
 * (their assembled ranges are 19 and 33 MiB: 40 MiB then). Never moved inline (threads: 0, in
 * any thread).
 */
function moves(task: Task, transfer: ArrayBuffer[]): boolean {
  if (!Piscina.isWorkerThread) return false;
  const bytes = transfer.reduce((t, b) => t + b.byteLength, 0);
  if (bytes === 0) return false; // nothing to detach
  // Tasks whose results may be copied say up to how many bytes (`copyUpTo`); others always move.
  if (!detached && 'copyUpTo' in task && bytes <= task.copyUpTo) return false;
  detached = true;
  return true;
}

export default async function dispatch(task: Task): Promise<TaskReply<unknown>> {
  const t0 = performance.now();
  beginScratch('scratch' in task ? task.scratch : null);
  try {
    const value = await runTask(task);
    const reply: TaskReply<unknown> = { ok: true, value, ms: performance.now() - t0, scratch: endScratch() };
    const transfer = (value as { transfer?: ArrayBuffer[] } | null)?.transfer;
    if (transfer) {
      delete (value as { transfer?: ArrayBuffer[] }).transfer;
      // Moved, not copied, and no longer reachable from this thread (small group results: copied).
      if (moves(task, transfer)) {
        return Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: reply } as never) as unknown as TaskReply<unknown>;
      }
    }
    return reply;
  } catch (err) {
    endScratch();
    return { ok: false, error: toEnvelope(err) };
  }
}
