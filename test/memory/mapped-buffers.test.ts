/**
 * Large data buffers are mapped pages (growable / resizable buffers) so that their memory goes
 * back to the system when collected, or at once for a released local buffer; small ones stay
 * plain allocations.
 */
import { describe, expect, it } from 'vitest';
import { TransferArena } from '../../src/columns/arena.js';
import { newLocalBuffer, newSharedBuffer, releaseLocalBuffer } from '../../src/memory/mapped-buffers.js';

describe('mapped buffers', () => {
  it('makes large buffers mapped and small ones plain', () => {
    expect(newSharedBuffer(1 << 20).growable).toBe(true);
    expect(newSharedBuffer(1 << 20).byteLength).toBe(1 << 20);
    expect(newSharedBuffer(4096).growable).toBe(false);
    expect(newLocalBuffer(1 << 20).resizable).toBe(true);
    expect(newLocalBuffer(4096).resizable).toBe(false);
  });

  it('gives a released local buffer back: its views read as empty', () => {
    const b = newLocalBuffer(1 << 20);
    const view = new Float64Array(b, 0, 1000);
    view.fill(2);
    releaseLocalBuffer(b);
    expect(b.byteLength).toBe(0);
    expect(view.length).toBe(0);
    // Plain and shared buffers are left alone.
    const small = newLocalBuffer(64);
    releaseLocalBuffer(small);
    expect(small.byteLength).toBe(64);
    const shared = newSharedBuffer(1 << 20);
    releaseLocalBuffer(shared);
    expect(shared.byteLength).toBe(1 << 20);
  });

  it('releases every buffer of a releasable TransferArena, which can then allocate again', () => {
    const arena = new TransferArena(true);
    const a = arena.alloc(Float64Array, 1000);
    const big = arena.alloc(Uint8Array, 1 << 20);
    a.fill(1);
    big.fill(1);
    expect(arena.buffers.length).toBe(2);
    arena.release();
    expect(arena.buffers.length).toBe(0);
    expect(big.length).toBe(0); // a mapped buffer's pages are gone at once
    const again = arena.alloc(Int32Array, 10);
    expect(again.length).toBe(10);
    expect(Array.from(again)).toEqual(new Array(10).fill(0));
  });

  it('gives a result arena\'s arrays each an exactly sized heap buffer, zeroed unless asked overwritten', () => {
    const arena = new TransferArena();
    const a = arena.alloc(Float64Array, 10);
    const b = arena.alloc(Uint8Array, 100000);
    const c = arena.alloc(Int32Array, 1 << 20, 'overwritten');
    expect(arena.buffers.map((x) => x.byteLength)).toEqual([80, 100000, 4 << 20]);
    expect(arena.buffers.every((x) => !x.resizable)).toBe(true); // heap memory, reused across runs
    expect(a.every((x) => x === 0) && b.every((x) => x === 0)).toBe(true);
    expect(c.length).toBe(1 << 20);
    // The buffers move to another thread whole.
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(arena.buffers, [...arena.buffers]);
    expect(a.length).toBe(0);
    port1.close();
    port2.close();
  });
});
