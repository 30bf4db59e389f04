import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each example is a child process (some start MCP servers): one file at a time.
    maxWorkers: 1,
  },
});
