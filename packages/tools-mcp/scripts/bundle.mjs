// Bundles the package's entries (src/index.ts, src/cli.ts, src/node.ts) into one ESM file each, with shared
// code in chunks/: each module of a package costs a fraction of a millisecond to load.
// Dependencies stay external. `node scripts/bundle.mjs [outdir]` (default dist; the tests build
// into a directory of their own, so that other packages' tests never see a half-built dist/).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts', 'src/cli.ts', 'src/node.ts'],
  outdir: process.argv[2] ?? 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
