/** `new Engine(options)` (API.md "Engine"). Defaults are applied by resolveEngineOptions. */
import * as z from 'zod';
import type { Progress } from '../types/plan.js';
import { anyOf, instance, int, name, oneOf, options } from './kit.js';

/**
 * The most worker threads and hash partitions an engine takes: beyond them a pool or the
 * per-partition bookkeeping alone outgrows any memory budget (100M partitions of 2,300 rows
 * took 4 GB and crashed Node), and no machine gains from them.
 */
export const MAX_THREADS = 256;
export const MAX_PARTITIONS = 65536;

export const engineShape = {
  threads: int(0, MAX_THREADS).optional(),
  memoryBudget: anyOf("a number of bytes or a size such as '512MiB'", [z.number(), z.string()]).optional(),
  spillDir: name('a folder path (non-empty string)').optional(),
  partitions: int(1, MAX_PARTITIONS).optional(),
  onProgress: instance<(p: Progress) => void>('a function', (v): v is (p: Progress) => void => typeof v === 'function').optional(),
  windowAlgorithm: oneOf(['prefix', 'naive']).optional(),
  slabRows: int(1).optional(),
};

export const engineOptions = options(engineShape);
