// Packs every publishable package (packages/*) into tarballs, as `npm publish` would upload
// them, so the packages can be used from a clone before they are on the npm registry.
// Usage: node scripts/pack.mjs [--out DIR] [--skip-build]   (default DIR: ./packed; --skip-build
// when the packages are built already, e.g. in a test running beside others that read dist/)
// Prints the `npm install` line that installs them all into another project.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'packed' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const out = path.resolve(values.out);
const run = (file, args, cwd) =>
  execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

const packages = readdirSync(path.join(root, 'packages'))
  .map((name) => path.join(root, 'packages', name))
  .filter((dir) => {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).private !== true;
    } catch {
      return false;
    }
  });

run(
  path.join(root, 'node_modules', '.bin', 'turbo'),
  ['run', 'build', '--filter=./packages/*', '--output-logs=errors-only'],
  root,
);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// `pnpm pack` writes `workspace:` and `catalog:` ranges as the real versions, as publishing does.
for (const dir of packages) run('pnpm', ['pack', '--pack-destination', out], dir);
const tarballs = readdirSync(out)
  .filter((name) => name.endsWith('.tgz'))
  .sort();
process.stdout.write(
  `${tarballs.length} tarballs in ${out}\nIn your project, install the ones you use together with those they depend on (all of them is simplest):\n  npm install ${tarballs.map((name) => path.join(out, name)).join(' ')}\n`,
);
