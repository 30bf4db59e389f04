/**
 * Issue 29 §4–5: the Gemini provider is its own entry, `@agcore/llm-cycle/gemini`; the root
 * entry does not load it, and `./testing` reaches it only as a test server, never the provider.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reachedFrom as reached, sourceRoot } from '../../test-support/source-files.js';

const packageRoot = resolve(sourceRoot, '..');
const inGemini = (file: string): boolean => file.startsWith('providers/gemini/');

describe('the gemini entry', () => {
  it('is in the exports map with its types, and the root and ./testing entries do not load the provider', () => {
    const manifest = JSON.parse(readFileSync(resolve(packageRoot, 'package.json'), 'utf8'));
    expect(manifest.exports['./gemini']).toEqual({
      types: './dist/gemini.d.ts',
      default: './dist/gemini.js',
    });
    expect(manifest.typesVersions['*'].gemini).toEqual(['./dist/gemini.d.ts']);
    expect([...reached('index.ts')].filter(inGemini)).toEqual([]);
    expect([...reached('testing/index.ts')].filter(inGemini)).toEqual([]);
    expect([...reached('gemini.ts')].some(inGemini)).toBe(true);
    expect(Object.keys(manifest.dependencies)).toEqual([
      '@agcore/tools-core',
      '@agcore/tools-registry',
      'eventsource-parser',
    ]);
  });
});
