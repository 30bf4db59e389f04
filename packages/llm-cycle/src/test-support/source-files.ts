/**
 * The package's own source as tests about its structure read it: the runtime files (tests,
 * benches and test support aside) and what an entry loads.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's `src`. */
export const sourceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Whether `path` (relative to `src`) is a test, a bench or test support. */
export function isSupport(path: string): boolean {
  return /\.(test|test-d|bench)\.ts$/.test(path) || /(^|\/)test-support\//.test(path);
}

/** The runtime source files under `dir` (absolute), as paths relative to `src`. */
export function runtimeFiles(dir: string = sourceRoot): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return runtimeFiles(path);
    const file = relative(sourceRoot, path);
    return name.endsWith('.ts') && !isSupport(file) ? [file] : [];
  });
}

/** The text of a source file (a path relative to `src`). */
export function readSource(file: string): string {
  return readFileSync(join(sourceRoot, file), 'utf8');
}

/** Every source file `entry` loads, itself included (relative imports, `.js` read as `.ts`), relative to `src`. */
export function reachedFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readSource(file).matchAll(
      /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/g,
    )) {
      const target = resolve(dirname(join(sourceRoot, file)), match[1] as string);
      visit(relative(sourceRoot, target).replace(/\.js$/, '.ts'));
    }
  };
  visit(entry);
  return seen;
}
