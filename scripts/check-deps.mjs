// Fails when a workspace package imports another workspace package it does not declare, or
// declares/imports one that the design's module graph forbids. Run by `pnpm lint` (and CI).
//
// Runtime code (src/ outside tests) may only use the edges below, declared in `dependencies`.
// Tests and benchmarks may also use workspace packages declared in `devDependencies`.
// Inside a package with a row in `folderRules`, runtime files import between the folders of its
// `src` only the way the row allows (llm-cycle: providers never import the loop, runs never the loop;
// tools-mcp and tools-mcp-server: the two engines, or eras, never import each other).
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
  '@agcore/store-postgres': ['@agcore/tools-core'],
};

/**
 * Rooms of a package's `src` and the rooms each may import (issue 22 §2), for runtime code
 * (tests and test support are exempt). A room is a folder under `src`, or a single file (the
 * entry); `.` is the files directly in `src` (the shared types). A file belongs to the longest
 * room that contains it; a runtime file in a folder the table does not name is a problem, so a
 * new folder (a new provider) gets its row when it is made.
 */
const folderRules = {
  '@agcore/llm-cycle': {
    '.': [],
    'index.ts': ['*'],
    'openai-responses.ts': ['providers/openai-responses'],
    // The shared HTTP layer is wire-neutral: each format's parsing lives with its provider.
    'providers/http': ['.'],
    'providers/openai-compatible': ['.', 'providers/http'],
    'providers/anthropic': ['.', 'providers/http'],
    'anthropic.ts': ['.', 'providers/anthropic'],
    'providers/openai-responses': ['.', 'providers/http'],
    'providers/gemini': ['.', 'providers/http'],
    'gemini.ts': ['.', 'providers/gemini'],
    runs: ['.'],
    observability: ['.'],
    // The context budget (result store, read_result, clearing, breakdown): the loop uses it.
    context: ['.'],
    loop: ['.', 'runs', 'observability', 'context'],
    testing: ['.', 'providers/http', 'providers/openai-compatible'],
  },
  // issue 31 §5: `.` is the shared vocabulary (public types, the error, tool names and
  // permissions); the two engines never import each other, and only the loader sees both;
  // auth imports no engine; the modern engine does not use the v1 transports.
  '@agcore/tools-mcp': {
    '.': [],
    'index.ts': ['*'],
    'node.ts': ['*'],
    'cli.ts': ['*'],
    auth: ['.'],
    config: ['.', 'auth'],
    calls: ['.'],
    schemas: ['.'],
    pins: ['.'],
    typegen: ['.'],
    transport: ['.', 'auth', 'config'],
    engines: ['.', 'calls', 'config', 'schemas', 'transport'],
    'engines/legacy': ['.', 'engines', 'calls', 'config', 'transport'],
    'engines/modern': ['.', 'engines', 'calls', 'auth'],
    'engines/engine-loader.ts': ['.', 'engines', 'engines/legacy', 'engines/modern'],
    listing: ['.', 'engines', 'pins', 'schemas'],
    tools: ['.', 'pins'],
    // Resources and prompts: the lists, reads, subscriptions and the two resource tools.
    resources: ['.', 'engines'],
    client: [
      '.',
      'calls',
      'config',
      'engines',
      'engines/engine-loader.ts',
      'listing',
      'pins',
      'resources',
      'schemas',
      'tools',
    ],
  },
  // issue 31 (rooms): `.` is the public vocabulary (options, caller, the provider interfaces);
  // the two eras never import each other; offerings, calls and clients import no era; nothing
  // but the `.` entry imports serving (the `./stdio` entry serves the 2025 era without it).
  '@agcore/tools-mcp-server': {
    '.': [],
    'index.ts': ['*'],
    'stdio.ts': ['.', 'calls', 'clients', 'offerings', 'eras/legacy'],
    auth: ['.'],
    fleet: [],
    clients: ['.'],
    calls: ['.'],
    offerings: ['.'],
    'eras/legacy': ['.', 'calls', 'clients', 'offerings'],
    'eras/modern': ['.', 'calls', 'clients', 'offerings'],
    serving: ['.', 'calls', 'clients', 'offerings', 'eras/legacy', 'eras/modern'],
  },
};

/** The room of `path` (relative to `src`) in `rules`, or undefined when no row holds it. */
function roomOf(rules, path) {
  if (Object.hasOwn(rules, path)) return path;
  const folders = Object.keys(rules)
    .filter((room) => room !== '.' && path.startsWith(`${room}/`))
    .sort((a, b) => b.length - a.length);
  if (folders.length > 0) return folders[0];
  return path.includes('/') ? undefined : '.';
}

/** The folder-rule problem of one relative import, if any. */
function folderProblem(rules, source, target, where, specifier) {
  const from = roomOf(rules, source);
  const to = roomOf(rules, target);
  if (from === undefined || to === undefined || to === from) return undefined;
  const allowed = rules[from];
  if (allowed.includes('*') || allowed.includes(to)) return undefined;
  return `${where} imports ${specifier} (room ${to}), which the folder rules forbid for room ${from} (allowed: ${allowed.join(', ') || 'none'})`;
}

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
  const rules = folderRules[name];
  const sourceDir = join(dir, 'src');
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
    const inPackage = relative(dir, file).split(sep).join('/');
    const test = isTestFile(inPackage);
    const inSource = inPackage.startsWith('src/');
    if (
      rules !== undefined &&
      !test &&
      inSource &&
      roomOf(rules, inPackage.slice(4)) === undefined
    ) {
      problems.push(`${where} is in a folder the folder rules of ${name} do not name`);
    }
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
      if (specifier.startsWith('.') && rules !== undefined && !test && inSource) {
        const target = relative(sourceDir, resolve(dirname(file), specifier))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts');
        if (!target.startsWith('..')) {
          const problem = folderProblem(rules, inPackage.slice(4), target, where, specifier);
          if (problem !== undefined) problems.push(problem);
        }
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
