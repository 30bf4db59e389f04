import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each test spawns the built CLI (and MCP servers); keep the 2-core machine breathing.
    maxWorkers: 2,
  },
});
