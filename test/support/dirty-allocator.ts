import type { Allocator } from '../../src/columns/gather.js';

/**
 * The allocator contract as a reused pool buffer keeps it: memory asked for 'overwritten' is
 * handed out full of old bytes, 'zeroed' memory is cleared. Every buffer a gather, scatter or
 * concat takes 'overwritten' must be written whole.
 */
export const dirtyWhenOverwritten: Allocator = ((ctor: new (b: SharedArrayBuffer, o: number, l: number) => unknown, length: number, fill = 'zeroed') => {
  const bytesPer = (ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  const b = new SharedArrayBuffer(Math.ceil((length * bytesPer) / 8) * 8);
  if (fill === 'overwritten') new Uint8Array(b).fill(0xee);
  return new ctor(b, 0, length);
}) as Allocator;
