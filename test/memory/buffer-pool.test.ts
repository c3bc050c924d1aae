/**
 * The buffer pool lends reused buffers only when they are about the size asked: a loan is
 * reserved whole for as long as it is held (an exchange keeps its routing buffers until the
 * kernel phase ends), so a reused buffer much bigger than asked inflates what the run holds.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBudget, type Reservation } from '../../src/memory/budget.js';
import { BufferPool, bufferSize } from '../../src/memory/buffer-pool.js';
import { collect } from '../support/gc.js';

const MiB = 2 ** 20;

/** A budget of `limit`, its pool and one reservation. */
function setup(limit = 64 * MiB) {
  const budget = new MemoryBudget(limit);
  const pool = new BufferPool(budget);
  return { budget, pool, r: budget.reserve('t') };
}

describe('BufferPool', () => {
  it('leaves nothing counted when the system refuses a fresh buffer', () => {
    const { budget, pool, r } = setup(2 ** 52);
    // Past what a SharedArrayBuffer may hold: the allocation throws after the room was taken.
    expect(() => pool.tryTake(r, 2 ** 51)).toThrow(RangeError);
    expect(r.size).toBe(0);
    expect(budget.used).toBe(0);
  });

  it('reuses a free buffer of the size asked', () => {
    const { pool, r } = setup();
    const b = pool.take(r, 3 * MiB);
    pool.give(r, b);
    expect(pool.tryTake(r, 3 * MiB)).toBe(b);
    expect(r.size).toBe(b.byteLength);
  });

  it('lends a buffer of just the size asked rather than a free one 1.5x bigger', () => {
    const { pool, r } = setup();
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
    const { pool, r } = setup();
    const step = bufferSize(4 * MiB + 1);
    expect(step).toBeGreaterThan(bufferSize(4 * MiB));
    const b = pool.take(r, step);
    pool.give(r, b);
    expect(pool.tryTake(r, 4 * MiB)).toBe(b);
  });

  it('lends a brief loan a free buffer up to twice its size instead of a fresh one', () => {
    const { pool, r } = setup();
    const big = pool.take(r, 7 * MiB);
    pool.give(r, big);
    expect(pool.tryTake(r, 4 * MiB, 'brief')).toBe(big);
    expect(r.size).toBe(big.byteLength);
    pool.give(r, big);
    // More than twice: a fresh buffer of the size asked, the big one stays free.
    const small = pool.tryTake(r, 3 * MiB, 'brief')!;
    expect(small).not.toBe(big);
    expect(small.byteLength).toBe(bufferSize(3 * MiB));
    expect(pool.held).toBe(big.byteLength);
  });

  it("at the budget's limit a brief loan reuses the free buffer rather than evicting it", () => {
    const { budget, pool, r } = setup(10 * MiB);
    const big = pool.take(r, 8 * MiB);
    pool.give(r, big);
    const got = pool.tryTake(r, 6 * MiB, 'brief');
    expect(got).toBe(big);
    expect(budget.used + pool.held).toBeLessThanOrEqual(budget.limit);
  });

  it('evicts the buffers given back longest ago first, keeping the newest for the next loan', () => {
    // A phase change: small buffers of the partition phase come back first, then the kernel
    // phase's big loan; the next big loan must find it, not a fresh buffer.
    const { budget, pool, r } = setup(16 * MiB);
    const small = [1, 2, 3].map(() => pool.take(r, 2 * MiB));
    for (const b of small) pool.give(r, b);
    const big = pool.take(r, 8 * MiB);
    pool.give(r, big);
    const other = budget.reserve('other');
    expect(other.tryGrow(4 * MiB)).toBe(true);
    // Room for 4 MiB came from the two oldest small buffers, not from the big one.
    expect(pool.tryTake(r, 7.5 * MiB, 'brief')).toBe(big);
    expect(budget.used + pool.held).toBeLessThanOrEqual(budget.limit);
  });

  it("'exact' never reuses a bigger buffer", () => {
    const { pool, r } = setup();
    const b = pool.take(r, bufferSize(4 * MiB + 1));
    pool.give(r, b);
    expect(pool.tryTake(r, 4 * MiB, 'exact')).not.toBe(b);
  });
});

describe('BufferPool at the limit', () => {
  it('lends a free buffer up to twice the size asked when a fresh one would evict it', () => {
    // 8 MiB budget: 5 MiB in use elsewhere, a free 3 MiB buffer; a 2 MiB loan fresh would
    // need the free one evicted (a dropped buffer waits for the collector), so it serves.
    const { budget, pool, r } = setup(8 * MiB);
    const other = budget.reserve('other');
    const b = pool.take(r, 3 * MiB);
    pool.give(r, b);
    other.grow(5 * MiB);
    const got = pool.tryTake(r, 2 * MiB)!;
    expect(got).toBe(b);
    expect(r.size).toBe(b.byteLength);
    expect(budget.used + pool.held).toBeLessThanOrEqual(budget.limit);
  });

  it('still lends a fresh buffer of the size asked while there is room for both', () => {
    const { pool, r } = setup(64 * MiB);
    const b = pool.take(r, 3 * MiB);
    pool.give(r, b);
    const got = pool.tryTake(r, 2 * MiB)!;
    expect(got).not.toBe(b);
    expect(pool.held).toBe(b.byteLength);
  });
});

describe('BufferPool revives dropped buffers the collector has not taken yet', () => {
  it('a cached buffer evicted by another reservation serves a later loan of its size', () => {
    const { budget, pool, r } = setup(8 * MiB);
    const b = pool.take(r, 3 * MiB);
    pool.give(r, b);
    expect(pool.held).toBe(b.byteLength);
    const other = budget.reserve('other');
    other.grow(7 * MiB); // evicts b
    expect(pool.held).toBe(0);
    other.shrink(7 * MiB);
    expect(pool.tryTake(r, 3 * MiB)).toBe(b);
    // Not twice: the revived buffer left the list.
    expect(pool.tryTake(r, 3 * MiB)).not.toBe(b);
  });

  it('revives only within the fit of the loan', () => {
    const { budget, pool, r } = setup(8 * MiB);
    const b = pool.take(r, 6 * MiB);
    pool.give(r, b);
    budget.reserve('other').grow(7 * MiB);
    expect(pool.held).toBe(0);
    const small = budget.reserve('small');
    // 'near' takes at most about 1.125x: a 6 MiB buffer is no fit for 1 MiB.
    expect(pool.tryTake(small, 1 * MiB)).not.toBe(b);
  });
});

describe('BufferPool nudges the collector when dropped buffers pile up', () => {
  /** Takes a `bytes` buffer, gives it back (cached) and makes another reservation evict it: dropped. */
  function dropOne(budget: MemoryBudget, pool: BufferPool, r: Reservation, bytes: number): SharedArrayBuffer {
    const b = pool.take(r, bytes);
    pool.give(r, b);
    const other = budget.reserve('other');
    other.grow(budget.limit - bytes / 2);
    other.free();
    return b;
  }

  it('counts dropped buffers until collected and nudges once those alive reach the step (64 MiB at least)', async () => {
    const { budget, pool, r } = setup(64 * MiB);
    // Growing sizes: no dropped buffer fits a later loan (it would be revived, not dropped again).
    const kept = [16, 20, 24].map((m) => dropOne(budget, pool, r, m * MiB));
    expect(pool.droppedAlive).toBe(60 * MiB);
    expect(pool.nudges).toBe(0);
    kept.push(dropOne(budget, pool, r, 28 * MiB)); // 88 MiB alive: past the step
    expect(pool.nudges).toBe(1);
    // Still alive, but not a step's worth dropped since the nudge: not nudged again.
    kept.push(dropOne(budget, pool, r, 32 * MiB));
    expect(pool.droppedAlive).toBe(120 * MiB);
    expect(pool.nudges).toBe(1);
    kept.length = 0;
    await collect();
    expect(pool.droppedAlive).toBe(0);
    // Collected: dropping as much again nudges once more only when that much is alive again.
    const again = [16, 20, 24].map((m) => dropOne(budget, pool, r, m * MiB));
    expect(pool.nudges).toBe(1);
    again.push(dropOne(budget, pool, r, 28 * MiB));
    expect(pool.nudges).toBe(2);
  });

  it('does not nudge when the dropped buffers were collected on their own', async () => {
    const { budget, pool, r } = setup(64 * MiB);
    for (const m of [16, 20, 24]) dropOne(budget, pool, r, m * MiB);
    await collect();
    expect(pool.droppedAlive).toBe(0);
    dropOne(budget, pool, r, 28 * MiB); // 88 MiB dropped, 28 alive
    expect(pool.nudges).toBe(0);
  });

  it('a revived buffer leaves the count', () => {
    const { budget, pool, r } = setup(8 * MiB);
    const b = dropOne(budget, pool, r, 3 * MiB);
    expect(pool.droppedAlive).toBe(b.byteLength);
    expect(pool.tryTake(r, 3 * MiB)).toBe(b);
    expect(pool.droppedAlive).toBe(0);
  });
});
