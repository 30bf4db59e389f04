// vitest globalSetup: bundles the child servers (test-support/stdio-server.ts, fleet-node.ts) into
// ESM files that plain `node` runs, dependencies external (this package has no TypeScript
// loader), under node_modules/.test-build, out of the linters' way.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outdir = fileURLToPath(new URL('../../node_modules/.test-build/', import.meta.url));
/** Where the bundled stdio child server is written. */
export const stdioServerPath = `${outdir}stdio-server.mjs`;
/** Where the bundled fleet process is written. */
export const fleetNodePath = `${outdir}fleet-node.mjs`;

export default async function setup(): Promise<void> {
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: {
      'stdio-server': fileURLToPath(new URL('./stdio-server.ts', import.meta.url)),
      'fleet-node': fileURLToPath(new URL('./fleet-node.ts', import.meta.url)),
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}
