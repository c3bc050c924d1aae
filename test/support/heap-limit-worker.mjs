// A worker task module for pool tests: replies to any task with its isolate's heap limit.
import { getHeapStatistics } from 'node:v8';

export default function heapLimit() {
  return { ok: true, value: { heapSizeLimit: getHeapStatistics().heap_size_limit }, ms: 0, scratch: { used: 0, overflow: 0 } };
}
