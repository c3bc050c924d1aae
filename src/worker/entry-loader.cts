/**
 * What piscina loads in each worker (its `filename`). piscina `require()`s a task module before
 * trying `import()`; on a Node that can `require()` ES modules this CommonJS file is what it gets,
 * and the dispatcher (./entry, an ES module graph) loads through `import()`: a worker terminated
 * while that graph loads then ends cleanly, where a synchronous `require()` of it aborts the
 * whole process (see workerEntry in src/coordinator/pool).
 *
 * Loading starts at once, so the first task does not wait for it longer than it must.
 */
import type { Task, TaskReply } from '../types/tasks.js';

type Dispatch = (task: Task) => Promise<TaskReply<unknown>>;

// From sources this file is entry-loader.cts, loaded by tsx's CommonJS hook, which compiles
// entry.ts and its imports to CommonJS too (tsx's import hooks do not reach worker threads here).
const loading: Promise<{ default: Dispatch }> = __filename.endsWith('.cts')
  ? Promise.resolve().then(() => require('./entry.ts') as { default: Dispatch })
  : import('./entry.js');
// A failed load is reported by the first task that awaits it, not as an unhandled rejection.
loading.catch(() => {});

export = async function runTask(task: Task): Promise<TaskReply<unknown>> {
  let dispatch: Dispatch;
  try {
    dispatch = (await loading).default;
  } catch (err) {
    // The worker is up but cannot run anything: said as such, not as a task that died.
    const e = err instanceof Error ? err : new Error(String(err));
    return { ok: false, error: { sluice: true, className: 'WorkerError', code: 'WORKER_START_FAILED', message: `A worker thread could not load Sluice's task modules: ${e.message}`, details: {}, stack: e.stack } };
  }
  return dispatch(task);
};
