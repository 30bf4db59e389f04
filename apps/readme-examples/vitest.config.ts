import { defineConfig } from 'vitest/config';

// The from-a-clone suite installs the packed tarballs with npm, pnpm and yarn (minutes of
// registry and disk work, not code that differs by Node version): CI runs it on its Node 20 leg
// only (AGCORE_SERVICE_TESTS=1), with the other suites that start services. Outside CI it runs.
const installLeg = process.env.CI === undefined || process.env.AGCORE_SERVICE_TESTS === '1';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: installLeg ? [] : ['test/from-a-clone.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each example is a child process (some start MCP servers): one file at a time.
    maxWorkers: 1,
  },
});
