import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Generous limits: a property test that takes 0.5 s on an idle machine takes ten times that
    // while turbo runs every package's suite at once on two cores. They guard against hangs only.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    // The type-level tests (`*.test-d.ts`) are checked by `tsc` (`pnpm typecheck`, src/ whole):
    // vitest's typecheck mode would only run tsc again, behind an "experimental" notice.
  },
});
