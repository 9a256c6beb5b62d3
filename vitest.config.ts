import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['src/web/**', 'node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files each start their own server and database; two cores, so keep it modest.
    maxWorkers: 2,
    fileParallelism: true,
    // The database matrix (SVC_TEST_DATABASES), decided once and printed at the start and at the end; the CLI
    // bundled from the current source for the tests that run `svc` as a process; a screenshot directory per run.
    globalSetup: ['test/setup/databases.ts', 'test/setup/svc-bundle.ts', 'test/setup/screenshots.ts'],
  },
});
