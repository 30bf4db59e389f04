/**
 * Issue 18 §6: the files of llm-cycle import one another one way. Reads the imports of every
 * source file (tests, benches and test support aside; `import type` included: a type cycle
 * still means a type lives in the wrong file) and fails naming each cycle it finds.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeFiles, sourceRoot } from './test-support/source-files.js';

/** The runtime source files, absolute. */
function sourceFiles(): string[] {
  return runtimeFiles().map((file) => join(sourceRoot, file));
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** File -> the files of this package it imports (relative specifiers, `.js` read as `.ts`). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(importPattern)) {
      const specifier = (match[1] ?? match[2]) as string;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      const candidates = [target, join(target, 'index.ts')];
      const found = candidates.find((candidate) => known.has(candidate));
      if (found !== undefined) targets.push(found);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle met by a depth-first walk, each as its files in import order. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('import cycles in llm-cycle', () => {
  it('the check sees a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('no source file imports itself back, through any path', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(20);
    const graph = importGraph(files);
    expect([...graph.values()].flat().length).toBeGreaterThan(50);
    const named = cyclesOf(graph).map((cycle) =>
      cycle.map((file) => relative(sourceRoot, file)).join(' -> '),
    );
    expect(named).toEqual([]);
  });
});
