// vitest globalSetup: bundles the stdio child server (test-support/stdio-server.ts) into one ESM
// file that plain `node` runs, dependencies external (this package has no TypeScript loader),
// under node_modules/.test-build, out of the linters' way.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Where the bundled child server is written. */
export const stdioServerPath = fileURLToPath(
  new URL('../../node_modules/.test-build/stdio-server.mjs', import.meta.url),
);

export default async function setup(): Promise<void> {
  mkdirSync(fileURLToPath(new URL('../../node_modules/.test-build/', import.meta.url)), {
    recursive: true,
  });
  await build({
    entryPoints: [fileURLToPath(new URL('./stdio-server.ts', import.meta.url))],
    outfile: stdioServerPath,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}
