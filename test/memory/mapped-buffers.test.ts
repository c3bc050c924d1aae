/**
 * Large data buffers are mapped pages (growable / resizable buffers) so that their memory goes
 * back to the system when collected; small ones stay plain allocations.
 */
import { describe, expect, it } from 'vitest';
import { newLocalBuffer, newSharedBuffer } from '../../src/memory/mapped-buffers.js';

describe('mapped buffers', () => {
  it('makes large buffers mapped and small ones plain', () => {
    expect(newSharedBuffer(1 << 20).growable).toBe(true);
    expect(newSharedBuffer(1 << 20).byteLength).toBe(1 << 20);
    expect(newSharedBuffer(4096).growable).toBe(false);
    expect(newLocalBuffer(1 << 20).resizable).toBe(true);
    expect(newLocalBuffer(4096).resizable).toBe(false);
  });
});
