/**
 * Worker entry (piscina `filename`): dispatches a task by kind. Every failure is returned as a
 * plain error envelope, since an Error's class and `code` do not survive the thread boundary.
 * The same function runs inline on the main thread for `threads: 0`.
 * Each task runs inside its scratch loan (./scratch): begun before, ended (and its use
 * reported) after, on success and failure alike, so no view of the loan outlives the task.
 */
import { isMainThread } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toEnvelope } from '../errors.js';
import type { Task, TaskReply } from '../types/tasks.js';
import { runAggPartialTask } from './agg-partial-task.js';
import { runAssembleSparseTask, runAssembleTask } from './assemble-task.js';
import { runAsofTask } from './asof-task.js';
import { runCollectTask } from './collect-task.js';
import { runFaultTask } from './fault-task.js';
import { runGroupByTask, runWindowGroupByTask } from './groupby-task.js';
import { runJoinBuildTask } from './join-build-task.js';
import { runJoinProbeTask } from './join-probe-task.js';
import { runJoinTask } from './join-task.js';
import { runPartitionTask } from './partition-task.js';
import { runRouteTask } from './route-task.js';
import { runRowLocalTask } from './rowlocal-task.js';
import { beginScratch, endScratch } from './scratch.js';
import { runSortSampleTask, runSortTask } from './sort-task.js';
import { runWindowSuffixTask, runWindowTask } from './window-task.js';

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
      return runCollectTask();
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
    case 'join':
      return runJoinTask(task);
    case 'joinBuild':
      return runJoinBuildTask(task);
    case 'joinProbe':
      return runJoinProbeTask(task);
    case 'assembleSparse':
      return runAssembleSparseTask(task);
  }
}

/**
 * A task's result buffers are copied to the main thread rather than moved when they are this
 * small. Moving detaches them, and V8 compiles a thread's typed-array code assuming no
 * ArrayBuffer of the thread was ever detached: the first detach throws all of it away (232
 * recompilations in a group-by's second run, 1.5x the third's time) and the code compiled
 * after it runs slower for good (a window run 15% slower after one). Copying a few MiB costs
 * well under a millisecond; a large result is still moved (copying it would cost more).
 * groupby-100k, 10M rows: second run 440 -> 293 ms, later runs 307-328 -> 273-284 ms.
 */
const COPY_RESULTS_UP_TO = 4 * 2 ** 20;

/** This thread has moved a result: V8's assumption is gone for good, and copying gains nothing. */
let detached = false;

export default async function dispatch(task: Task): Promise<TaskReply<unknown>> {
  const t0 = performance.now();
  beginScratch('scratch' in task ? task.scratch : null);
  try {
    const value = await runTask(task);
    const reply: TaskReply<unknown> = { ok: true, value, ms: performance.now() - t0, scratch: endScratch() };
    const transfer = (value as { transfer?: ArrayBuffer[] } | null)?.transfer;
    if (transfer) {
      delete (value as { transfer?: ArrayBuffer[] }).transfer;
      // Moved, not copied, and no longer reachable from this thread; small results are copied
      // while the thread has never moved one (see COPY_RESULTS_UP_TO).
      if (!isMainThread && (detached || transfer.reduce((t, b) => t + b.byteLength, 0) > COPY_RESULTS_UP_TO)) {
        detached = true;
        return Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: reply } as never) as unknown as TaskReply<unknown>;
      }
    }
    return reply;
  } catch (err) {
    endScratch();
    return { ok: false, error: toEnvelope(err) };
  }
}
