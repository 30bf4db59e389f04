import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.mjs'],
    testTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
  },
});
