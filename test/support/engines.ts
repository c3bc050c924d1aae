/**
 * Engines for differential tests, one per (threads, partitions, budget) setting, created on
 * first use and closed after the file. Small slabs make every run route many slabs. And engines
 * by (threads, memory budget) alone, for the tests of budgets smaller than a partition.
 */
import fc from 'fast-check';
import { afterAll } from 'vitest';
import { Engine, type EngineOptions } from '../../src/index.js';

export interface EngineSetting {
  threads: number;
  partitions: number;
  memoryBudget?: string;
}

export const SETTINGS: EngineSetting[] = [
  { threads: 0, partitions: 1 },
  { threads: 1, partitions: 7 },
  { threads: 2, partitions: 64 },
  { threads: 2, partitions: 7 },
  { threads: 0, partitions: 64 },
  // A budget so small that every slab and retained batch spills.
  { threads: 2, partitions: 7, memoryBudget: '64KiB' },
];

/** Engines created on first use, one per distinct options, closed after the file. */
function engineCache(): (options: EngineOptions) => Engine {
  const engines = new Map<string, Engine>();
  afterAll(async () => {
    await Promise.all([...engines.values()].map((e) => e.close()));
  });
  return (options) => {
    const key = JSON.stringify(options);
    let e = engines.get(key);
    if (!e) {
      e = new Engine(options);
      engines.set(key, e);
    }
    return e;
  };
}

export function enginePool(slabRows = 16): (s: EngineSetting) => Engine {
  const engineFor = engineCache();
  return (s) => engineFor({ threads: s.threads, partitions: s.partitions, memoryBudget: s.memoryBudget ?? '256MiB', slabRows });
}

/** Engines by thread count and memory budget, all else default (partitions, slab rows): the skew tests. */
export function budgetEngines(): (threads: number, memoryBudget: string) => Engine {
  const engineFor = engineCache();
  return (threads, memoryBudget) => engineFor({ threads, memoryBudget });
}

export const BATCH_SIZES = [1, 3, 1024];

export const settingArb = fc.constantFrom(...SETTINGS);
export const batchSizeArb = fc.constantFrom(...BATCH_SIZES);
