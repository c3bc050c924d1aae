/** Memory budget: byte-size parsing, reservation accounting, and the MEMORY_EXHAUSTED text. */
import { describe, expect, it } from 'vitest';
import { ExecutionError, PlanError } from '../../src/errors.js';
import { MemoryBudget, parseBytes } from '../../src/memory/budget.js';

describe('parseBytes', () => {
  it('reads numbers and unit strings', () => {
    expect(parseBytes(1234)).toBe(1234);
    expect(parseBytes('512MiB')).toBe(512 * 2 ** 20);
    expect(parseBytes('1GiB')).toBe(2 ** 30);
    expect(parseBytes('2GB')).toBe(2e9);
    expect(parseBytes('100KB')).toBe(100_000);
    expect(parseBytes('10B')).toBe(10);
    expect(parseBytes('1.5 kib')).toBe(1536);
    expect(parseBytes('4096')).toBe(4096);
    // one-letter units are binary, as Java's -Xmx1g and Docker's --memory 1g
    expect(parseBytes('1g')).toBe(2 ** 30);
    expect(parseBytes('512M')).toBe(512 * 2 ** 20);
    expect(parseBytes('64k')).toBe(64 * 1024);
  });
  it('rejects anything else with PlanError BAD_MEMORY_BUDGET naming the value', () => {
    for (const bad of ['', 'lots', '12 parsecs', '-5MB', '1e3', 'MB', -1, NaN, Infinity] as Array<string | number>) {
      let err: unknown;
      try {
        parseBytes(bad);
      } catch (e) {
        err = e;
      }
      expect(err, String(bad)).toBeInstanceOf(PlanError);
      expect((err as PlanError).code).toBe('BAD_MEMORY_BUDGET');
      expect((err as PlanError).message).toContain(typeof bad === 'string' ? JSON.stringify(bad) : String(bad));
    }
  });
});

describe('MemoryBudget', () => {
  it('accounts grow, shrink, resize and free; tracks peak; lists live reservations', () => {
    const b = new MemoryBudget('1KiB');
    const a = b.reserve('exchange p1');
    const c = b.reserve('sort buffer');
    expect(a.tryGrow(600)).toBe(true);
    expect(c.tryGrow(500)).toBe(false);
    expect(c.size).toBe(0);
    c.grow(400);
    expect(b.used).toBe(1000);
    expect(b.reservations()).toEqual([
      { name: 'exchange p1', bytes: 600 },
      { name: 'sort buffer', bytes: 400 },
    ]);
    a.shrink(100);
    c.resize(50);
    expect(b.used).toBe(550);
    expect(b.peak).toBe(1000);
    expect(b.limit).toBe(1024);
    expect(a.free()).toBe(500);
    expect(a.free()).toBe(0);
    expect(b.reservations()).toEqual([{ name: 'sort buffer', bytes: 50 }]);
    c.free();
    expect(b.used).toBe(0);
    expect(b.reservations()).toEqual([]);
    expect(() => c.shrink(1)).toThrow(ExecutionError);
  });

  it('grow beyond the budget throws MEMORY_EXHAUSTED saying what was asked, held and free', () => {
    const b = new MemoryBudget('10MiB');
    b.reserve('exchange p3').grow(6 * 2 ** 20);
    b.reserve('window output').grow(3 * 2 ** 20);
    const r = b.reserve('sort p7');
    let err: unknown;
    try {
      r.grow(2 * 2 ** 20);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExecutionError);
    const e = err as ExecutionError;
    expect(e.code).toBe('MEMORY_EXHAUSTED');
    expect(e.message).toContain('"sort p7" by 2.0 MiB');
    expect(e.message).toContain('1.0 MiB free of the 10.0 MiB memory budget');
    expect(e.message).toContain('"exchange p3" 6.0 MiB, "window output" 3.0 MiB');
    expect(e.details).toMatchObject({ reservation: 'sort p7', requested: 2 * 2 ** 20, free: 2 ** 20 });
    expect(b.used).toBe(9 * 2 ** 20);
  });
});
