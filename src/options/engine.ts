/** `new Engine(options)` (API.md "Engine"). Defaults are applied by resolveEngineOptions. */
import * as z from 'zod';
import type { Progress } from '../types/plan.js';
import { anyOf, instance, int, name, oneOf, options } from './kit.js';

export const engineShape = {
  threads: int(0).optional(),
  memoryBudget: anyOf("a number of bytes or a size such as '512MiB'", [z.number(), z.string()]).optional(),
  spillDir: name('a folder path (non-empty string)').optional(),
  partitions: int(1).optional(),
  onProgress: instance<(p: Progress) => void>('a function', (v): v is (p: Progress) => void => typeof v === 'function').optional(),
  windowAlgorithm: oneOf(['prefix', 'naive']).optional(),
  slabRows: int(1).optional(),
};

export const engineOptions = options(engineShape);
