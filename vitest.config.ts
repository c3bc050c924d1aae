import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Worker-thread tests start piscina pools; forks keep each test file's threads apart.
    pool: 'forks',
    maxWorkers: 2,
  },
});
