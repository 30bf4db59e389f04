// Smaller rooms: the public entry shows what the README shows, files stay small, and imports
// inside the package go one way.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as entry from './index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The runtime source files under `src` (tests, benches and test support left out), as paths relative to it. */
function runtimeSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test-support' ? [] : runtimeSources(path);
    const isRuntime =
      name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.bench.ts');
    return isRuntime ? [relative(here, path).split('\\').join('/')] : [];
  });
}

const sources = runtimeSources(here);

/** Every file under `src` (tests, benches and test support included), relative to it. */
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return allFiles(path);
    return /\.(ts|mjs)$/.test(name) ? [relative(here, path).split('\\').join('/')] : [];
  });
}

/** The folders under `src` that hold runtime code (`test-support` left out). */
function runtimeFolders(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (!statSync(path).isDirectory() || name === 'test-support') return [];
    return [`${relative(here, path).split('\\').join('/')}/`, ...runtimeFolders(path)];
  });
}

describe('the public entry', () => {
  it('exports what the README documents and no internal helper', () => {
    expect(Object.keys(entry).sort()).toEqual([
      'McpClient',
      'McpResourceTooLargeError',
      'McpServers',
      'McpToolError',
      'Permission',
      'ToolError',
      'createMemoryTokenStore',
      'createToolContext',
      'generateToolTypes',
      'idJagAssertion',
      'parseMcpServersConfig',
    ]);
  });
});

describe('the source files', () => {
  it('stay under ~400 lines each', () => {
    for (const name of sources) {
      const lines = readFileSync(join(here, name), 'utf8').split('\n').length;
      expect(lines, name).toBeLessThanOrEqual(400);
    }
  });

  it('stay under ~400 lines each, tests and test support too', () => {
    for (const name of allFiles(here)) {
      const lines = readFileSync(join(here, name), 'utf8').split('\n').length;
      expect(lines, name).toBeLessThanOrEqual(400);
    }
  });

  it("sit in the folders the README's Layout names, each with its purpose", () => {
    const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
    const layout = readme.split('\n## Layout\n')[1]?.split('\n## ')[0] ?? '';
    const rows = [...layout.matchAll(/^\| `([a-z/-]+\/)` \| (.+) \|$/gm)];
    const named = rows.map((row) => row[1]);
    for (const row of rows) expect(row[2]?.trim().length, row[1]).toBeGreaterThan(10);
    expect(named.sort()).toEqual(runtimeFolders(here).sort());
    expect(named).toEqual(expect.arrayContaining(['engines/legacy/', 'engines/modern/', 'auth/']));
  });

  it('import each other one way (no cycle)', () => {
    const edges = new Map<string, string[]>();
    for (const name of sources) {
      const text = readFileSync(join(here, name), 'utf8');
      const targets = [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((match) =>
        posix.join(posix.dirname(name), `${match[1]}.ts`),
      );
      edges.set(name, targets);
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const path: string[] = [];
    const visit = (name: string): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') {
        throw new Error(`import cycle: ${[...path.slice(path.indexOf(name)), name].join(' -> ')}`);
      }
      state.set(name, 'visiting');
      path.push(name);
      for (const target of edges.get(name) ?? []) visit(target);
      path.pop();
      state.set(name, 'done');
    };
    for (const name of sources) visit(name);
  });
});
