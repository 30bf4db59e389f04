/**
 * Issue 19 §1: a consumer typechecks with `strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess` and `skipLibCheck: false` against the packed packages' `.d.ts`,
 * without `@opentelemetry/api` installed: a Node consumer of all five packages, and a Web
 * consumer (no Node types, DOM lib) of the four whose root entries are for every runtime.
 */

import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, consumerProject, run, suiteRuns } from './support.js';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const strictest = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
};

async function typecheck(name: string, compilerOptions: object, files: readonly string[]) {
  const project = consumerProject();
  const config = path.join(project, `tsconfig.${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({ compilerOptions: { ...strictest, ...compilerOptions }, files }),
  );
  // A whole-program check of every package's .d.ts: minutes on a loaded 2-core machine.
  return run(process.execPath, [tsc, '-p', config], {
    cwd: project,
    env: childEnv(),
    timeoutMs: 300_000,
  });
}

describe.skipIf(!suiteRuns)(
  'a strict consumer typechecks against the packed .d.ts, without the OTel peer',
  () => {
    it('Node: every package, skipLibCheck false', async () => {
      const checked = await typecheck('node', { types: ['node'], lib: ['ES2023'] }, [
        'consumers/tools-core.ts',
        'consumers/tools-permission.ts',
        'consumers/tools-registry.ts',
        'consumers/llm-cycle.ts',
        'consumers/tools-mcp.ts',
      ]);
      expect(checked.stdout).toBe('');
      expect(checked.status).toBe(0);
    }, 320_000);

    it('Web: tools-core, tools-permission, tools-registry and llm-cycle with no Node types', async () => {
      const checked = await typecheck(
        'web',
        { types: [], lib: ['ES2023', 'DOM', 'DOM.Iterable'] },
        ['agent.ts'],
      );
      expect(checked.stdout).toBe('');
      expect(checked.status).toBe(0);
    }, 320_000);
  },
);
