/**
 * Worker entry (piscina `filename`): dispatches a task by kind. Every failure is returned as a
 * plain error envelope, since an Error's class and `code` do not survive the thread boundary.
 * The same function runs inline on the main thread for `threads: 0`.
 */
import { isMainThread } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toEnvelope } from '../errors.js';
import type { Task, TaskReply } from '../types/tasks.js';
import { runAsofTask } from './asof-task.js';
import { runFaultTask } from './fault-task.js';
import { runPartitionTask } from './partition-task.js';
import { runRouteTask } from './route-task.js';
import { runRowLocalTask } from './rowlocal-task.js';
import { runWindowTask } from './window-task.js';

export default async function dispatch(task: Task): Promise<TaskReply<unknown>> {
  const t0 = performance.now();
  try {
    let value: unknown;
    switch (task.kind) {
      case 'partition':
        value = runPartitionTask(task);
        break;
      case 'window':
        value = await runWindowTask(task);
        break;
      case 'asof':
        value = await runAsofTask(task);
        break;
      case 'route':
        value = await runRouteTask(task);
        break;
      case 'rowlocal':
        value = runRowLocalTask(task);
        break;
      case 'fault':
        value = await runFaultTask(task);
        break;
      default:
        throw new Error(`unknown task kind ${(task as { kind: string }).kind}`);
    }
    const reply: TaskReply<unknown> = { ok: true, value, ms: performance.now() - t0 };
    const transfer = (value as { transfer?: ArrayBuffer[] } | null)?.transfer;
    if (transfer) {
      delete (value as { transfer?: ArrayBuffer[] }).transfer;
      // Moved, not copied, and no longer reachable from this thread.
      if (!isMainThread) return Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: reply } as never) as unknown as TaskReply<unknown>;
    }
    return reply;
  } catch (err) {
    return { ok: false, error: toEnvelope(err) };
  }
}
