/**
 * Raises glibc malloc's mmap threshold to its ceiling once, when a worker starts.
 *
 * Results and scratch come from the C heap (SharedArrayBuffers and heap ArrayBuffers: see
 * ./mapped-buffers), so that a run's memory lands where the last run's was freed instead of in
 * fresh pages (a page fault per 4 KiB, the dominant cost of a large run here). glibc serves a
 * request above its mmap threshold (128 KiB at start) with pages mapped for it and unmaps them
 * on free; the threshold rises to the size of the largest mapped chunk freed, up to 32 MiB. So a
 * process's first run maps and unmaps its result columns, and its second run (the threshold
 * risen by then) grows the malloc heaps into fresh pages again: the second run faulted in about
 * as much as the first. Freeing one never-touched mapped chunk just under 32 MiB at start moves
 * the threshold there at once (the same step glibc takes after any run's first large free).
 * Measured, join-int-inner warm runs, two processes each: the second run's faults 503-504 ->
 * 201-262 MiB, 764-783 -> 708-721 ms; the later runs' 138-261 -> 81-140 MiB.
 *
 * Costs one full collection of the new worker's small heap (./collect-now) and no touched
 * memory (a mapped chunk is zero already: calloc does not clear it). Another malloc (musl,
 * jemalloc) just maps and unmaps 32 MiB once.
 */
import { collectNow } from './collect-now.js';

/** Just under glibc's DEFAULT_MMAP_THRESHOLD_MAX (32 MiB on 64-bit), header and page rounding included. */
const PRIME_BYTES = 32 * 2 ** 20 - 64 * 1024;

/** Called once by each worker as it starts (src/worker/entry). */
export async function primeMallocThreshold(): Promise<void> {
  let buffer: ArrayBuffer | null = new ArrayBuffer(PRIME_BYTES);
  if (buffer.byteLength !== PRIME_BYTES) return; // (keeps the allocation from looking unused)
  buffer = null;
  await collectNow();
}
