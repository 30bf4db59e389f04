/**
 * Issue 19 §1: a consumer of each package bundles with esbuild for node, browser and neutral,
 * from the packed tarballs, without `@opentelemetry/api` installed and without being told about
 * it (no `--external`); the node bundles run. tools-mcp's root entry holds the stdio transport
 * and the MCP SDK (Node-only): for browser and neutral it is bundled with Node's built-in
 * modules external, as for a runtime with Node compatibility, which is what proves the
 * optional peer stays out of the way there too.
 */

import { writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type BundleOptions,
  bundle,
  childEnv,
  consumerProject,
  run,
  suiteRuns,
} from './support.js';

const consumers = [
  ['tools-core', 'tools-core echo ba7816bf timeout'],
  ['tools-permission', 'tools-permission read=true shell=false'],
  ['tools-registry', 'tools-registry 5'],
  ['llm-cycle', 'llm-cycle string 1'],
  ['tools-mcp', 'tools-mcp web'],
] as const;
const platforms = ['node', 'browser', 'neutral'] as const;
const nodeBuiltins = ['node:*', ...builtinModules];

/** What esbuild is told besides the platform: nothing, but for Node-only code. */
function optionsFor(name: string, platform: (typeof platforms)[number]): BundleOptions {
  if (platform === 'node') {
    // An ESM bundle for Node whose CommonJS dependency (cross-spawn, under the MCP SDK) requires
    // a built-in module needs esbuild's documented `require` shim.
    return name === 'tools-mcp' ? { banner: { js: requireShim } } : {};
  }
  if (name !== 'tools-mcp') return {};
  // As a Node-compatible runtime resolves: built-ins are there; for neutral, the MCP SDK's
  // dependencies have no `exports` (ajv) or only `browser` and `node` ones (pkce-challenge).
  return platform === 'neutral'
    ? { external: nodeBuiltins, mainFields: ['module', 'main'], conditions: ['node'] }
    : { external: nodeBuiltins };
}
const requireShim =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

describe.skipIf(!suiteRuns)(
  'a consumer of each package bundles with esbuild, without the OTel peer',
  () => {
    for (const [name, said] of consumers) {
      for (const platform of platforms) {
        it(`@agcore/${name} for --platform=${platform}`, async () => {
          const entry = path.join(consumerProject(), 'consumers', `${name}.ts`);
          const bundled = await bundle(entry, platform, optionsFor(name, platform));
          expect(bundled.errors).toEqual([]);
          if (platform !== 'node') return;
          const file = path.join(consumerProject(), `${name}.node.mjs`);
          writeFileSync(file, bundled.code);
          const ran = await run(process.execPath, [file], {
            cwd: consumerProject(),
            env: childEnv(),
          });
          expect(ran.stderr).toBe('');
          expect(ran.stdout.trim()).toBe(said);
        });
      }
    }
  },
);
