/**
 * Reading ahead: a hash table or gather bigger than the caches waits on a cache miss a row when
 * its loop reads, then branches on what it read (the branch's outcome is unpredictable, so the
 * CPU cannot run ahead to the next row's load). A short branch-free pass that first reads the
 * places the next rows will need (their home slots, their values) issues those misses
 * together, and the real loop then finds them in the cache. The places that do it: gather's
 * variable-width copy, the join table's probes, the group-id tables' builds.
 */

/** Where read-ahead passes put the XOR of what they read, so that the reads are not optimized away. */
export const readAheadSink = new Int32Array(1);
