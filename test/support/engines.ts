/**
 * Engines for differential tests, one per (threads, partitions, budget) setting, created on
 * first use and closed after the file. Small slabs make every run route many slabs.
 */
import { afterAll } from 'vitest';
import { Engine } from '../../src/index.js';

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

export function enginePool(slabRows = 16): (s: EngineSetting) => Engine {
  const engines = new Map<string, Engine>();
  afterAll(async () => {
    await Promise.all([...engines.values()].map((e) => e.close()));
  });
  return (s) => {
    const key = `${s.threads}/${s.partitions}/${s.memoryBudget ?? ''}`;
    let e = engines.get(key);
    if (!e) {
      e = new Engine({ threads: s.threads, partitions: s.partitions, memoryBudget: s.memoryBudget ?? '256MiB', slabRows });
      engines.set(key, e);
    }
    return e;
  };
}

export const BATCH_SIZES = [1, 3, 1024];
