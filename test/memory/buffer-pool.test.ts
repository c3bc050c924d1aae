/**
 * The buffer pool lends reused buffers only when they are about the size asked: a loan is
 * reserved whole for as long as it is held (an exchange keeps its routing buffers until the
 * kernel phase ends), so a reused buffer much bigger than asked inflates what the run holds.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBudget } from '../../src/memory/budget.js';
import { BufferPool, bufferSize } from '../../src/memory/buffer-pool.js';

const MiB = 2 ** 20;

describe('BufferPool', () => {
  it('reuses a free buffer of the size asked', () => {
    const budget = new MemoryBudget(64 * MiB);
    const pool = new BufferPool(budget);
    const r = budget.reserve('t');
    const b = pool.take(r, 3 * MiB);
    pool.give(r, b);
    expect(pool.tryTake(r, 3 * MiB)).toBe(b);
    expect(r.size).toBe(b.byteLength);
  });

  it('lends a buffer of just the size asked rather than a free one 1.5x bigger', () => {
    const budget = new MemoryBudget(64 * MiB);
    const pool = new BufferPool(budget);
    const r = budget.reserve('t');
    const big = pool.take(r, 6 * MiB);
    pool.give(r, big);
    const got = pool.tryTake(r, 4 * MiB)!;
    expect(got).not.toBe(big);
    expect(got.byteLength).toBe(bufferSize(4 * MiB));
    expect(r.size).toBe(bufferSize(4 * MiB));
    // The bigger one stays free for a later loan of its size.
    expect(pool.held).toBe(big.byteLength);
  });

  it('reuses a free buffer one size step bigger', () => {
    const budget = new MemoryBudget(64 * MiB);
    const pool = new BufferPool(budget);
    const r = budget.reserve('t');
    const step = bufferSize(4 * MiB + 1);
    expect(step).toBeGreaterThan(bufferSize(4 * MiB));
    const b = pool.take(r, step);
    pool.give(r, b);
    expect(pool.tryTake(r, 4 * MiB)).toBe(b);
  });
});
