import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { errorCodeMetaKey, type ServeToolsOptions, serveTools } from '../index.js';
import { connectV1, connectV2, fixtureRegistry } from '../test-support/fixtures.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function listen(
  options: ServeToolsOptions,
  registry = fixtureRegistry().registry,
): Promise<string> {
  const served = serveTools(registry, options);
  cleanups.push(() => served.close());
  return (await served.listen({ port: 0 })).url;
}

function closeLater<T extends { close(): Promise<unknown> }>(client: T): T {
  cleanups.push(() => client.close());
  return client;
}

describe('hostile input and options', () => {
  it('takes secrets out of error messages before they leave the server', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'leaky',
        description: 'Fails with a secret in its message',
        parameters: { type: 'object', properties: {} },
        execute: async () => {
          throw new Error('connect failed with password hunter2-long-secret');
        },
      }),
    );
    const url = await listen({ secrets: ['hunter2-long-secret'] }, registry);
    const result = await closeLater(await connectV1(url)).callTool({
      name: 'leaky',
      arguments: {},
    });
    expect(result._meta?.[errorCodeMetaKey]).toBe('execution_failed');
    expect(JSON.stringify(result)).not.toContain('hunter2-long-secret');
  });

  it('refuses the era it does not serve, with a message saying which one to speak', async () => {
    const modernOnly = await listen({ protocols: ['2026-07-28'] });
    await expect(connectV1(modernOnly)).rejects.toThrow(/2026-07-28/);
    expect(
      (await closeLater(await connectV2(modernOnly)).listTools()).tools.length,
    ).toBeGreaterThan(0);
    const legacyOnly = await listen({ protocols: ['2025-11-25'] });
    await expect(connectV2(legacyOnly)).rejects.toThrow();
    expect(
      (await closeLater(await connectV1(legacyOnly)).listTools()).tools.length,
    ).toBeGreaterThan(0);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error, not a crash', async () => {
    const url = await listen({});
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('refuses a needsApproval call when the approval policy throws', async () => {
    const url = await listen({
      approval: () => {
        throw new Error('policy store down');
      },
    });
    const result = await closeLater(await connectV1(url)).callTool({
      name: 'delete_all',
      arguments: {},
    });
    expect(result._meta?.[errorCodeMetaKey]).toBe('denied');
    expect(JSON.stringify(result.content)).toContain('policy store down');
  });

  it('serves through the fetch handler alone, without listen', async () => {
    const served = serveTools(fixtureRegistry().registry);
    cleanups.push(() => served.close());
    const response = await served.fetch(
      new Request('http://tools.internal/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"echo"');
    expect((await served.fetch(new Request('http://tools.internal/healthz'))).status).toBe(200);
  });

  it('rejects malformed options by name', () => {
    const registry = new ToolRegistry();
    expect(() => serveTools(registry, { path: 'mcp' })).toThrow(/path/);
    expect(() => serveTools(registry, { maxRequestBodyBytes: 0 })).toThrow(/maxRequestBodyBytes/);
    expect(() => serveTools(registry, { requestStateKey: 'short' })).toThrow(/requestStateKey/);
    expect(() => serveTools(registry, { protocols: [] })).toThrow(/protocols/);
  });
});
