/**
 * Issue 29 §3 and §5, as the source shows them: one driver reads every wire format's answers
 * (no provider has a read loop of its own), one options type carries the shared HTTP options
 * (no provider declares them again), the root entry loads no native provider, llm-cycle has no
 * runtime dependency beyond the ones it had, and no source file outgrows its room.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  reachedFrom,
  readSource as read,
  runtimeFiles,
  sourceRoot,
} from '../test-support/source-files.js';

const packageRoot = resolve(sourceRoot, '..');
const providerFiles = runtimeFiles(join(sourceRoot, 'providers'));

/** The fields of `HttpProviderOptions`, which no provider's options may declare again. */
const sharedOptions = ['headers', 'fetch', 'idleTimeoutMs', 'timeoutMs', 'maxResponseBytes'];

describe('the providers', () => {
  it('read answers through one driver: only providers/http parses SSE or reads a body', () => {
    const parsing = providerFiles.filter((file) =>
      read(file).includes("from 'eventsource-parser'"),
    );
    expect(parsing).toEqual(['providers/http/answer-reader.ts']);
    const reading = providerFiles.filter((file) =>
      /\bnew BodyReader\(|\.getReader\(\)/.test(read(file)),
    );
    expect(reading.filter((file) => !file.startsWith('providers/http/'))).toEqual([]);
  });

  it('extend HttpProviderOptions and declare none of its fields again', () => {
    const formats = providerFiles.filter((file) => !file.startsWith('providers/http/'));
    const declared: string[] = [];
    for (const file of formats) {
      for (const match of read(file).matchAll(
        /export interface (\w+ProviderOptions)\b([^{]*)\{([\s\S]*?)\n\}/g,
      )) {
        const [, name, heritage, body] = match as unknown as [string, string, string, string];
        declared.push(name);
        expect(heritage, `${file}: ${name}`).toContain('extends HttpProviderOptions');
        for (const field of sharedOptions)
          expect(body, `${file}: ${name} declares ${field}`).not.toMatch(
            new RegExp(`readonly ${field}\\?`),
          );
      }
    }
    expect(declared.sort()).toEqual([
      'AnthropicProviderOptions',
      'GeminiProviderOptions',
      'OpenAICompatibleProviderOptions',
      'OpenAIResponsesProviderOptions',
    ]);
    const shared = read('providers/http/provider-options.ts');
    for (const field of sharedOptions) expect(shared).toContain(`readonly ${field}?`);
  });
});

describe('the package', () => {
  it('loads no native provider from the root entry: only the shared HTTP layer and Chat Completions', () => {
    const folders = new Set(
      [...reachedFrom('index.ts')]
        .filter((file) => file.startsWith('providers/'))
        .map((file) => file.split('/')[1]),
    );
    expect([...folders].sort()).toEqual(['http', 'openai-compatible']);
  });

  it('has no runtime dependency beyond tools-core, tools-registry and eventsource-parser', () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@agcore/tools-core',
      '@agcore/tools-registry',
      'eventsource-parser',
    ]);
  });

  it('keeps every source file under 400 lines', () => {
    const long = runtimeFiles()
      .map((file) => ({ file, lines: read(file).trimEnd().split('\n').length }))
      .filter(({ lines }) => lines >= 400);
    expect(long).toEqual([]);
  });
});
