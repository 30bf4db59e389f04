// Fails when a workspace package imports another workspace package it does not declare, or
// declares/imports one that the design's module graph forbids. Run by `pnpm lint` (and CI).
//
// Runtime code (src/ outside tests) may only use the edges below, declared in `dependencies`.
// Tests and benchmarks may also use workspace packages declared in `devDependencies`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);

/** The design's module graph: package -> the workspace packages it may depend on at run time. */
const graph = {
  '@agcore/tools-core': [],
  '@agcore/tools-permission': ['@agcore/tools-core'],
  '@agcore/tools-registry': ['@agcore/tools-core', '@agcore/tools-permission'],
  '@agcore/tools-mcp': ['@agcore/tools-core'],
  '@agcore/llm-cycle': ['@agcore/tools-core', '@agcore/tools-registry'],
  '@agcore/tools-mcp-server': ['@agcore/tools-core', '@agcore/tools-registry'],
  '@agcore/durable-dbos': ['@agcore/tools-core', '@agcore/tools-registry', '@agcore/llm-cycle'],
};

const isTestFile = (path) =>
  /\.(test|test-d|bench)\.[cm]?[jt]s$/.test(path) ||
  /(^|\/)(test-support|test|tests|bench)\//.test(path);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.[cm]?[jt]sx?$/.test(name)) yield path;
  }
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;

const problems = [];
const workspaces = ['packages', 'apps'].flatMap((group) => {
  const dir = join(root, group);
  try {
    return readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
});

for (const dir of workspaces) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  const name = manifest.name;
  const runtime = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
  const allowed = graph[name];
  if (allowed !== undefined) {
    for (const dependency of runtime) {
      if (dependency.startsWith('@agcore/') && !allowed.includes(dependency)) {
        problems.push(
          `${name} declares ${dependency}, which the module graph forbids (allowed: ${allowed.join(', ') || 'none'})`,
        );
      }
    }
  }
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    const where = relative(root, file);
    const test = isTestFile(relative(dir, file));
    for (const match of text.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
      if (
        specifier.startsWith('.') &&
        !`${resolve(dirname(file), specifier)}${sep}`.startsWith(`${dir}${sep}`)
      ) {
        problems.push(
          `${where} imports another package's source by path (${specifier}); import the package instead`,
        );
        continue;
      }
      if (!specifier.startsWith('@agcore/')) continue;
      const target = specifier.split('/').slice(0, 2).join('/');
      if (target === name) continue;
      if (runtime.has(target)) continue;
      if (test && dev.has(target)) continue;
      problems.push(
        `${where} imports ${target}, which ${name} does not declare in ${test ? 'dependencies or devDependencies' : 'dependencies'}`,
      );
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(
    `Module graph check failed:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write(`Module graph check passed (${workspaces.length} workspaces).\n`);
