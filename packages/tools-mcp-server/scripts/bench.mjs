// Bundles the bench and its server process (TypeScript) with esbuild, dependencies external, and
// runs it: this package has no TypeScript loader.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outdir = fileURLToPath(new URL('../node_modules/.bench-build/', import.meta.url));
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: {
    'serve.bench': fileURLToPath(new URL('../src/serve.bench.ts', import.meta.url)),
    'bench-node': fileURLToPath(new URL('../src/test-support/bench-node.ts', import.meta.url)),
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
// This process's node flags (--expose-gc, --single-threaded-gc from bench:compare) and its
// arguments (--root-a, --pairs, --method, …) are the bench's.
const result = spawnSync(
  process.execPath,
  [
    ...process.execArgv,
    `${outdir}serve.bench.mjs`,
    `${outdir}bench-node.mjs`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
process.exitCode = result.status ?? 1;
