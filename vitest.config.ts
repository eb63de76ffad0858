import { defineConfig } from 'vitest/config';

// One run covers every workspace. Test files create their own databases, so files may run in parallel;
// the machine has two cores, so keep the pool small.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // an idle machine's timeouts; the setup file stretches them by the load when each file starts
    testTimeout: 20_000,
    hookTimeout: 60_000,
    setupFiles: ['packages/http-kit/src/testing/vitest-setup.ts'],
    reporters: ['default'],
  },
});
