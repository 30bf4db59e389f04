import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Browsers and runtimes are child processes on a shared machine: one file at a time.
    maxWorkers: 1,
  },
});
