// Packs every publishable package (packages/*) into tarballs, as `npm publish` would upload
// them, so the packages can be used from a clone before they are on the npm registry.
// Usage: node scripts/pack.mjs [--out DIR] [--skip-build]   (default DIR: ./packed; --skip-build
// when the packages are built already, e.g. in a test running beside others that read dist/)
// Prints how to install them all into another project with npm, pnpm and yarn: pnpm and yarn
// also need to be told where the tarballs that the others depend on are (`overrides` in
// pnpm-workspace.yaml, `resolutions` in package.json), or they look for them on the registry.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

if (!values['skip-build']) {
  run(
    path.join(root, 'node_modules', '.bin', 'turbo'),
    ['run', 'build', '--filter=./packages/*', '--output-logs=errors-only'],
    root,
  );
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// `pnpm pack` writes `workspace:` and `catalog:` ranges as the real versions, as publishing does.
for (const dir of packages) run('pnpm', ['pack', '--pack-destination', out], dir);
const packed = packages.map((dir) => {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = path.join(
    out,
    `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`,
  );
  if (!existsSync(file)) throw new Error(`pnpm pack wrote no ${file}`);
  return { name: manifest.name, file, dependencies: Object.keys(manifest.dependencies ?? {}) };
});
process.stdout.write(instructions(packed.sort((a, b) => a.file.localeCompare(b.file))));

/** The install lines for each package manager, for tarballs `{ name, file, dependencies }`. */
function instructions(tarballs) {
  const files = tarballs.map((tarball) => tarball.file);
  const dependedOn = tarballs.filter((tarball) =>
    tarballs.some((other) => other.dependencies.includes(tarball.name)),
  );
  const overrides = dependedOn.map((tarball) => `    "${tarball.name}": "file:${tarball.file}"`);
  const resolutions = dependedOn.map(
    (tarball, index) =>
      `    "${tarball.name}": "file:${tarball.file}"${index < dependedOn.length - 1 ? ',' : ''}`,
  );
  return [
    `${tarballs.length} tarballs in ${out}`,
    'In your project, install the ones you use together with those they depend on (all of them is simplest).',
    '',
    'npm:',
    `  npm install ${files.join(' ')}`,
    '',
    'pnpm: first add this to pnpm-workspace.yaml in your project (create the file if there is none), so that the packages find the tarballs they depend on instead of the registry:',
    '  overrides:',
    ...overrides,
    'then:',
    `  pnpm add ${files.join(' ')}`,
    '',
    "yarn: first add this field to your project's package.json, for the same reason:",
    '  "resolutions": {',
    ...resolutions,
    '  }',
    'then:',
    `  yarn add ${files.map((file) => `file:${file}`).join(' ')}`,
    '',
  ].join('\n');
}
