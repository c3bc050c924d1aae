/** Deliberate failures, so tests can prove a failing or dying worker gives a typed error and no hang. */
import { isMainThread } from 'node:worker_threads';
import type { FaultTask } from '../types/tasks.js';

export async function runFaultTask(task: FaultTask): Promise<never> {
  // Never end the user's process: on the main thread (threads: 0) a crash is only simulated.
  if (task.mode === 'exit' && !isMainThread) process.exit(3);
  if (task.mode === 'hang') await new Promise(() => {});
  throw new Error(`deliberate ${task.mode} fault from a test`);
}
