/**
 * Issue 22 §1: the Responses provider is its own entry, `@agcore/llm-cycle/openai-responses`;
 * the root entry does not load it (its import time does not grow), and `./testing` reaches it
 * only as a test server, never the provider.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reachedFrom as reached, sourceRoot } from '../../test-support/source-files.js';

const packageRoot = resolve(sourceRoot, '..');

const inResponses = (file: string): boolean => file.startsWith('providers/openai-responses/');

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
