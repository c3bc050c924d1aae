import { describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/budget.js';
import { MergeBuffer } from '../../src/memory/merge-buffer.js';

describe('MergeBuffer', () => {
  it('is counted while a merge uses it, reused by the next, and given back when the run ends', async () => {
    const budget = new MemoryBudget('1MiB');
    const m = new MergeBuffer(budget);
    let first: ArrayBufferLike | null = null;
    await m.use(64 * 1024, async (room) => {
      const out = room(1000)!;
      expect(out.byteLength).toBe(64 * 1024);
      expect(budget.used).toBe(64 * 1024);
      first = out.buffer;
    });
    expect(budget.used).toBe(0);
    await m.use(64 * 1024, async (room) => {
      expect(room(2000)!.buffer).toBe(first);
      // a bigger message: a new buffer (the old one's pages given back)
      const big = room(100 * 1024)!;
      expect(big.byteLength).toBe(100 * 1024);
      expect(budget.used).toBe(100 * 1024);
      expect((first as ArrayBuffer).byteLength).toBe(0);
    });
    m.release();
    expect(budget.used).toBe(0);
    expect(budget.reservations()).toEqual([]);
  });

  it('answers null when the budget cannot hold the message, and merges take turns', async () => {
    const budget = new MemoryBudget('128KiB');
    const m = new MergeBuffer(budget);
    const other = budget.reserve('other');
    other.grow(100 * 1024);
    await m.use(64 * 1024, async (room) => {
      expect(room(64 * 1024)).toBeNull();
      expect(room(20 * 1024)!.byteLength).toBe(20 * 1024);
    });
    other.free();
    const order: string[] = [];
    const a = m.use(1024, async () => {
      order.push('a start');
      await new Promise((r) => setTimeout(r, 20));
      order.push('a end');
    });
    const b = m.use(1024, async () => {
      order.push('b');
    });
    await Promise.all([a, b]);
    expect(order).toEqual(['a start', 'a end', 'b']);
    m.release();
  });
});
