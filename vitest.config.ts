import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files first: over two workers, a long file started last is the run's tail, and a
 * clean clone (CI) has no timing cache for vitest to order by (it then runs files in no useful
 * order: the benchmark harness test, ~100 s, used to start near the end). Times measured on the
 * 2-core machine, slowest first.
 */
const SLOW_FIRST = [
  'test/engine/memory-budget.test.ts',
  'test/engine/preserve-order-budget.test.ts',
  'test/bench/quick.test.ts',
  'test/engine/join-broadcast.test.ts',
  'test/engine/window-reread.test.ts',
  'test/engine/skew-window.test.ts',
  'test/cli/e2e-inspect.test.ts',
  'test/cli/e2e-errors.test.ts',
  'test/engine/spill-failures.test.ts',
  'test/cli/e2e-job-output.test.ts',
  'test/engine/relational-budget.test.ts',
  'test/engine/skew-asof.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FIRST.findIndex((p) => f.moduleId.replaceAll('\\', '/').endsWith(p));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted.map((f, k) => ({ f, k })).sort((a, b) => rank(a.f) - rank(b.f) || a.k - b.k).map((x) => x.f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Worker-thread tests start piscina pools; forks keep each test file's threads apart.
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: SlowFirst },
  },
});
