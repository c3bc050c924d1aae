/**
 * Broadcast join: a range of the right rows written into the payload's row store (src/ops/
 * join-row-store fillRowStore) in the coordinator's shared buffer. The threads fill disjoint
 * ranges of one store at once; the coordinator cleared its `hit` bytes before and counts them
 * after (src/coordinator/exec-join-broadcast rowStoreOf).
 */
import { rebuildData, toKeyColumn, viewOf } from '../columns/shared.js';
import { intValues } from '../ops/dense-int-keys.js';
import { fillRowStore } from '../ops/join-row-store.js';
import type { JoinRowStoreTask } from '../types/tasks.js';

export function runJoinRowStoreTask(task: JoinRowStoreTask): null {
  const s = task.store;
  const key = toKeyColumn(rebuildData(task.key));
  fillRowStore(s.layout, task.payload.map(rebuildData), intValues(key), key.valid, s.min, task.from, task.to, viewOf(Int32Array, s.lines), viewOf(Uint8Array, s.hit), s.lens.map((r) => viewOf(Uint8Array, r)));
  return null;
}
