import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/test-support/build-dist.ts'],
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
