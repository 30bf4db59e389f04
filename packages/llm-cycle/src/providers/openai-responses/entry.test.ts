/**
 * Issue 22 §1: the Responses provider is its own entry, `@agcore/llm-cycle/openai-responses`;
 * the root entry does not load it (its import time does not grow), and `./testing` reaches it
 * only as a test server, never the provider.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const packageRoot = resolve(sourceRoot, '..');
const importPattern = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/g;

/** Every source file `entry` loads, itself included (relative imports, `.js` read as `.ts`). */
function reached(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern))
      visit(resolve(dirname(file), match[1] as string).replace(/\.js$/, '.ts'));
  };
  visit(resolve(sourceRoot, entry));
  return seen;
}

const inResponses = (file: string): boolean => file.includes('/providers/openai-responses/');

describe('the openai-responses entry', () => {
  it('is in the exports map with its types, and the root and ./testing entries do not load the provider', () => {
    const manifest = JSON.parse(readFileSync(resolve(packageRoot, 'package.json'), 'utf8'));
    expect(manifest.exports['./openai-responses']).toEqual({
      types: './dist/openai-responses.d.ts',
      default: './dist/openai-responses.js',
    });
    expect(manifest.typesVersions['*']['openai-responses']).toEqual([
      './dist/openai-responses.d.ts',
    ]);
    expect([...reached('index.ts')].filter(inResponses)).toEqual([]);
    expect([...reached('testing/index.ts')].filter(inResponses)).toEqual([]);
    expect([...reached('openai-responses.ts')].some(inResponses)).toBe(true);
  });
});
