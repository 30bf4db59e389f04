// Library roots: the checkouts whose built packages (`packages/*/dist`) a bench loads, so that
// `bench:compare` can point A at a temporary worktree of a git ref and B at the working tree,
// both in one process (two paths, two module instances).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root this package lives in (the working tree). */
export const workingTree = resolve(new URL('../../..', import.meta.url).pathname);

/** The value after `--name` in `argv`, or undefined. */
export function flagValue(argv, name) {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? undefined : argv[index + 1];
}

/**
 * The roots of a bench run: `--root-a`/`--root-b` (or `BENCH_ROOT_A`/`BENCH_ROOT_B`). Without
 * `root-a` the run is not a comparison (`compare: false`) and both are the working tree.
 */
export function libraryRoots(argv = process.argv, env = process.env) {
  const a = flagValue(argv, 'root-a') ?? env.BENCH_ROOT_A;
  const b = flagValue(argv, 'root-b') ?? env.BENCH_ROOT_B ?? workingTree;
  return { compare: a !== undefined, a: resolve(a ?? b), b: resolve(b) };
}

/**
 * The file `packages/<folder>/<export target>` of `root` for `specifier` (`@agcore/llm-cycle`,
 * `@agcore/llm-cycle/anthropic`), read from that checkout's own package.json `exports`.
 */
export function libraryFile(root, specifier) {
  const [scope, name, ...rest] = specifier.split('/');
  if (scope !== '@agcore' || name === undefined)
    throw new TypeError(`not an agcore package: ${specifier}`);
  const folder = join(root, 'packages', name);
  const manifestPath = join(folder, 'package.json');
  if (!existsSync(manifestPath)) throw new Error(`${specifier}: no ${manifestPath}`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const key = rest.length === 0 ? '.' : `./${rest.join('/')}`;
  const entry = manifest.exports?.[key];
  const target = typeof entry === 'string' ? entry : (entry?.import ?? entry?.default);
  if (target === undefined) return undefined;
  const file = join(folder, target);
  if (!existsSync(file))
    throw new Error(`${specifier}: ${file} is not built (run pnpm build in ${root})`);
  return file;
}

/** Imports `specifier` from the built packages of `root`; undefined when that checkout has no such export. */
export async function importLibrary(root, specifier) {
  const file = libraryFile(root, specifier);
  return file === undefined ? undefined : import(pathToFileURL(file).href);
}
