import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceRoot = path.dirname(fileURLToPath(import.meta.url));

/** Every `.ts` file under `dir`, as a path relative to `src/`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(sourceRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** The `src/` folder (`core`, `terminal`, `web`, or `.`) each relative import of `file` lands in. */
function importedFolders(file: string): string[] {
  const text = readFileSync(path.join(sourceRoot, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)];
  return specifiers.map((match) => {
    const target = path.normalize(path.join(path.dirname(file), match[1] ?? ''));
    return target.split(path.sep)[0] ?? '.';
  });
}

/** The imports of `from/` that land in one of `forbidden`, as `file → folder` lines. */
function crossings(from: string, forbidden: readonly string[]): string[] {
  return sourceFiles(from).flatMap((file) =>
    importedFolders(file)
      .filter((folder) => forbidden.includes(folder))
      .map((folder) => `${file} → ${folder}/`),
  );
}

describe('the playground layout: two front ends over one core', () => {
  it('the terminal UI never imports the web page', () => {
    expect(crossings('terminal', ['web'])).toEqual([]);
  });

  it('the web page never imports the terminal UI', () => {
    expect(crossings('web', ['terminal'])).toEqual([]);
  });

  it('the core imports neither front end', () => {
    expect(crossings('core', ['terminal', 'web'])).toEqual([]);
  });

  it('finds the imports it checks (the walk is not empty)', () => {
    expect(sourceFiles('terminal').length).toBeGreaterThan(10);
    expect(importedFolders(path.join('terminal', 'run-flow.ts'))).toContain('core');
  });
});
