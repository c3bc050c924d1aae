/**
 * The engine's one way to create data buffers: large ones as mapped pages, not malloc memory.
 *
 * A plain ArrayBuffer or SharedArrayBuffer comes from glibc malloc, which keeps freed memory in
 * its heap: after a run that cycled gigabytes through buffers of varied sizes, the heap was
 * fragmented and the process's RSS stayed hundreds of MiB above what it held ([heap] 376 MiB
 * at 30M rows / 64 MiB budget, measured from /proc/self/smaps). A buffer created with a
 * `maxByteLength` is reserved and committed as whole pages by V8's page allocator instead: when
 * it is collected its pages are unmapped (a resizable ArrayBuffer's go back at once on
 * `resize(0)`, measured: 20 x 10 MiB touched, RSS 242 -> 42 MiB, but that costs about 1 ms per
 * MB of the calling thread: reused pooled buffers are cheaper). Reads and writes through typed
 * arrays of an explicit length run at the same speed (measured).
 *
 * Small buffers stay plain: a mapping per 4 KiB buffer would cost a system call each.
 */

/** From this size up, buffers are mapped pages. */
const MAPPED_MIN_BYTES = 64 * 1024;

/** A SharedArrayBuffer of `bytes`, mapped pages when large (unmapped when collected). */
export function newSharedBuffer(bytes: number): SharedArrayBuffer {
  return bytes >= MAPPED_MIN_BYTES ? new SharedArrayBuffer(bytes, { maxByteLength: bytes }) : new SharedArrayBuffer(bytes);
}

/** A thread-local ArrayBuffer of `bytes`, mapped pages when large. */
export function newLocalBuffer(bytes: number): ArrayBuffer {
  return bytes >= MAPPED_MIN_BYTES ? new ArrayBuffer(bytes, { maxByteLength: bytes }) : new ArrayBuffer(bytes);
}
