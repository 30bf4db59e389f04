import { defaultMaxAttributeBytes, defineTool } from '@agcore/tools-core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolRegistryOptions } from './options.js';
import { startTestTracing, type TestTracing } from './test-support/otel.js';
import { ToolRegistry } from './tool-registry.js';

const megabyte = 1024 * 1024;
const marker = /…\[truncated: \d+ of \d+ bytes cut\]$/;

/** A tool whose description is 1 MB (an MCP server chooses that text) and that echoes. */
const verbose = defineTool({
  name: 'verbose',
  description: `Describes itself at length. ${'blah '.repeat(megabyte / 5)}`,
  parameters: { type: 'object' },
  execute: async (args) => args,
});

function bytes(value: unknown): number {
  return Buffer.byteLength(String(value), 'utf8');
}

/** Every string attribute of `span` is at most `limit` UTF-8 bytes. */
function expectBounded(span: ReadableSpan, limit: number): void {
  for (const [key, value] of Object.entries(span.attributes)) {
    if (typeof value === 'string') expect(bytes(value), key).toBeLessThanOrEqual(limit);
  }
  expect(bytes(span.name)).toBeLessThanOrEqual(limit);
  expect(bytes(span.status.message ?? '')).toBeLessThanOrEqual(limit);
}

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
});

function traced(options: ToolRegistryOptions['tracing'] = {}): ToolRegistry {
  return new ToolRegistry({ sessionId: 'session-1', tracing: options }).register(verbose);
}

/** 5 MB of arguments: 1 000 strings of 5 000 characters (what `recordContent` keeps is still large). */
const fiveMegabytes = {
  chunks: Array.from({ length: 1000 }, (_, index) => `${index}`.padEnd(5000, 'é')),
};

describe('span attributes are bounded (tracing.maxAttributeBytes)', () => {
  it('cuts a 1 MB tool description to the default 16 KiB, with the marker of cut tool results', async () => {
    tracing = startTestTracing();
    await traced().invoke('verbose', {});
    const [span] = tracing.spans();
    const description = span?.attributes['gen_ai.tool.description'];
    expect(bytes(description)).toBeLessThanOrEqual(defaultMaxAttributeBytes);
    expect(String(description)).toMatch(marker);
    expect(String(description)).toMatch(/^Describes itself at length\./);
  });

  it('cuts 5 MB of arguments and of result recorded with recordContent', async () => {
    tracing = startTestTracing();
    const invocation = await traced({ recordContent: true }).invoke('verbose', fiveMegabytes);
    expect(invocation.output.ok).toBe(true);
    const [span] = tracing.spans();
    if (span === undefined) throw new Error('no span');
    for (const key of ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) {
      expect(bytes(span.attributes[key]), key).toBeLessThanOrEqual(defaultMaxAttributeBytes);
      expect(String(span.attributes[key]), key).toMatch(marker);
    }
    expectBounded(span, defaultMaxAttributeBytes);
  });

  it('bounds the name, call id, session id and error message of a call to an unknown 1 MB name', async () => {
    tracing = startTestTracing();
    const name = 'n'.repeat(megabyte);
    await new ToolRegistry({
      sessionId: 's'.repeat(megabyte),
      tracing: { maxAttributeBytes: 4096 },
    })
      .register(verbose)
      .invoke(name, {}, { context: { toolCallId: 'c'.repeat(megabyte) } });
    const [span] = tracing.spans();
    if (span === undefined) throw new Error('no span');
    expect(span.attributes['error.type']).toBe('not_found');
    for (const key of ['gen_ai.tool.name', 'gen_ai.conversation.id']) {
      expect(String(span.attributes[key]), key).toMatch(marker);
    }
    expectBounded(span, 4096);
  });

  it('takes its own limit, and leaves short attributes whole', async () => {
    tracing = startTestTracing();
    const tools = traced({ recordContent: true, maxAttributeBytes: 1024 });
    await tools.invoke('verbose', fiveMegabytes);
    await tools.invoke('verbose', { city: 'Paris' });
    const [large, small] = tracing.spans();
    if (large === undefined || small === undefined) throw new Error('no span');
    expectBounded(large, 1024);
    expect(String(large.attributes['gen_ai.tool.description'])).toMatch(marker);
    expect(small.attributes['gen_ai.tool.call.arguments']).toBe('{"city":"Paris"}');
    expect(small.attributes['gen_ai.tool.name']).toBe('verbose');
  });

  it('refuses a limit that is not an integer of at least 128 bytes, naming the option', () => {
    for (const maxAttributeBytes of [
      0,
      -1,
      12.5,
      Number.NaN,
      100,
      Number.POSITIVE_INFINITY,
      '4096',
    ]) {
      expect(
        () => new ToolRegistry({ tracing: { maxAttributeBytes: maxAttributeBytes as number } }),
        String(maxAttributeBytes),
      ).toThrow(/tracing\.maxAttributeBytes/);
    }
  });
});
