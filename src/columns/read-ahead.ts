/**
 * Reading ahead: a hash table or gather bigger than the caches waits on a cache miss a row when
 * its loop reads, then branches on what it read (the branch's outcome is unpredictable, so the
 * CPU cannot run ahead to the next row's load). A short branch-free pass that first reads the
 * places the next rows will need (their home slots, their values) issues those misses
 * together, and the real loop then finds them in the cache. The places that do it: gather's
 * variable-width copy, the join table's probes, the group-id tables' builds.
 *
 * A source small enough for the core's own cache is simplest read through once, in order,
 * before a loop reads it at random (warmSource): the in-order pass runs at the prefetchers'
 * speed, and the random reads then find every line in L2.
 */

/** Where read-ahead passes put the XOR of what they read, so that the reads are not optimized away. */
export const readAheadSink = new Int32Array(1);

/**
 * Sources up to this size are worth warmSource: it leaves them in the core's L2 (2 MiB here).
 * A window task's sorted outputs are all computed before they are staged, so each is cold by
 * then: in an instrumented window6 run (30 outputs of 78K rows a task) a column's first
 * permutation took 7-8 ns a value, a second one of the same source 2; with warmSource the
 * window tasks' CPU 9.6-9.9 -> 7.4-7.75 s a run. Bigger sources would not stay in L2.
 */
export const WARM_MAX_BYTES = 1 << 20;

/**
 * Reads a byte of every 64-byte line of `src` when it is at most WARM_MAX_BYTES and `reads`
 * random reads are at least as many as its lines (fewer, of a long source, would cost more
 * than they save).
 */
export function warmSource(src: ArrayBufferView, reads: number): void {
  if (src.byteLength > WARM_MAX_BYTES || reads * 64 < src.byteLength) return;
  const bytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  let acc = 0;
  for (let i = 0; i < bytes.length; i += 64) acc |= bytes[i]!;
  readAheadSink[0] ^= acc;
}
