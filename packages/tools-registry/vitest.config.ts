import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-report.json' }]],
    // The type-level tests (`*.test-d.ts`) are checked by `tsc` (`pnpm typecheck`, src/ whole):
    // vitest's typecheck mode would only run tsc again, behind an "experimental" notice.
  },
});
