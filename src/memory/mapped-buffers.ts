/**
 * The engine's one way to create data buffers: large ones as mapped pages, not malloc memory.
 *
 * A plain ArrayBuffer or SharedArrayBuffer comes from glibc malloc, which keeps freed memory in
 * its heap: after a run that cycled gigabytes through buffers of varied sizes, the heap was
 * fragmented and the process's RSS stayed hundreds of MiB above what it held ([heap] 376 MiB
 * at 30M rows / 64 MiB budget, measured from /proc/self/smaps). A buffer created with a
 * `maxByteLength` is reserved and committed as whole pages by V8's page allocator instead: when
 * it is collected its pages are unmapped, and a resizable ArrayBuffer's pages go back at once
 * on `resize(0)` (measured: 20 x 10 MiB touched, RSS 242 -> 42 MiB). A summing loop over a typed
 * array of an explicit length runs at the same speed on either (measured; writes not timed).
 *
 * Small buffers stay plain: a mapping per 4 KiB buffer would cost a system call each.
 * Results that leave a worker are the exception (newHeapLocalBuffer): they are freed by the
 * caller's collector, and reusing that memory run after run beats faulting in fresh pages. So is
 * a worker's scratch (columns/arena localAlloc): a typed array over a resizable buffer runs hot
 * loops up to 2x slower in V8 11.3.
 */

/** From this size up, buffers are mapped pages. */
const MAPPED_MIN_BYTES = 64 * 1024;

/** A SharedArrayBuffer of `bytes`, mapped pages when large (unmapped when collected). */
export function newSharedBuffer(bytes: number): SharedArrayBuffer {
  return bytes >= MAPPED_MIN_BYTES ? new SharedArrayBuffer(bytes, { maxByteLength: bytes }) : new SharedArrayBuffer(bytes);
}

/** A thread-local ArrayBuffer of `bytes`, mapped pages when large (see releaseLocalBuffer). */
export function newLocalBuffer(bytes: number): ArrayBuffer {
  return bytes >= MAPPED_MIN_BYTES ? new ArrayBuffer(bytes, { maxByteLength: bytes }) : new ArrayBuffer(bytes);
}

/**
 * A thread-local ArrayBuffer from the C heap (malloc), for results that leave their thread and
 * for thread-local scratch:
 * memory freed by an earlier run is handed out again instead of fresh pages (see
 * columns/arena TransferArena). `zeroed` false: the caller writes every byte, so memory
 * reused from the heap is not cleared first. Not releasable: freed when collected.
 */
export function newHeapLocalBuffer(bytes: number, zeroed: boolean): ArrayBuffer {
  return zeroed ? new ArrayBuffer(bytes) : Buffer.allocUnsafeSlow(bytes).buffer;
}

/**
 * Gives a local buffer's pages back to the system now, rather than when the collector finds it
 * (which on a quiet main thread can be many hundreds of MiB later). Every view of it reads as
 * length 0 afterwards: call only when nothing will read it again.
 */
export function releaseLocalBuffer(buffer: ArrayBufferLike): void {
  if (buffer instanceof ArrayBuffer && buffer.resizable) buffer.resize(0);
}
