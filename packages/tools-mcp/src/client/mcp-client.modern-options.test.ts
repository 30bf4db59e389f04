// Every option of McpClient on the v2 engine, against a 2026-07-28 server on the v2 SDK.
import { createToolContext, type ToolError } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpElicitationRequest, type McpToolInfo } from '../index.js';
import { type ModernHttpServer, startModernHttp } from '../test-support/modern-server.js';

let server: ModernHttpServer;
beforeAll(async () => {
  server = await startModernHttp({ legacy: 'reject' });
});
afterAll(async () => {
  await server.stop();
});

function modernClient(options: ConstructorParameters<typeof McpClient>[2] = {}): McpClient {
  return new McpClient(
    'modern',
    { type: 'streamable-http', url: server.url },
    { protocol: '2026-07-28', ...options },
  );
}

describe('the v2 engine keeps the meaning of every option', () => {
  it('onElicitation answers the input_required rounds of MRTR', async () => {
    const asked: McpElicitationRequest[] = [];
    const client = modernClient({
      onElicitation: (request) => {
        asked.push(request);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    await client.connect();
    expect((await client.callTool('deploy', { env: 'prod' })).value).toBe('deployed to prod');
    expect(asked.map((request) => [request.mode, request.message])).toEqual([
      ['form', 'Deploy to prod?'],
    ]);
    await client.close();
  });

  it('delivers progress in order', async () => {
    const client = modernClient();
    await client.connect();
    const progress: number[] = [];
    const result = await client.callTool(
      'slow',
      { steps: 3, stepMs: 20 },
      { onProgress: (update) => progress.push(update.progress) },
    );
    expect(result.value).toBe('done after 3 steps');
    expect(progress).toEqual([1, 2, 3]);
    await client.close();
  });

  it('ends a call at timeoutMs with mcp_timeout and stays usable', async () => {
    const client = modernClient();
    await client.connect();
    const error = (await client
      .callTool('slow', { steps: 50, stepMs: 100 }, { timeoutMs: 200 })
      .catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('mcp_timeout');
    expect((await client.callTool('echo', { message: 'ok' })).value).toBe('Echo: ok');
    await client.close();
  });

  it('turns our abort into cancelled (never the SDK timeout), and the server sees the cancel', async () => {
    const client = modernClient();
    await client.connect();
    const controller = new AbortController();
    const before = server.events.filter((event) => event === 'cancelled slow').length;
    const call = client.callTool(
      'slow',
      { steps: 50, stepMs: 100 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const error = (await call.catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('cancelled');
    await expect
      .poll(() => server.events.filter((event) => event === 'cancelled slow').length, {
        timeout: 5_000,
      })
      .toBe(before + 1);
    expect((await client.callTool('echo', { message: 'ok' })).value).toBe('Echo: ok');
    await client.close();
  });

  it('onToolsChanged hears a change through subscriptions/listen', async () => {
    const changes: (readonly McpToolInfo[])[] = [];
    const client = modernClient({ onToolsChanged: (tools) => changes.push(tools) });
    await client.connect();
    expect(server.methods).toContain('subscriptions/listen');
    server.handler.notify.toolsChanged();
    await expect.poll(() => changes.length, { timeout: 5_000 }).toBe(1);
    expect(changes[0]?.map((tool) => tool.name)).toContain('echo');
    await client.close();
  });

  it("lists again once the server's ttlMs has passed", async () => {
    const short = await startModernHttp({ legacy: 'reject', toolsTtlMs: 50 });
    try {
      const client = new McpClient(
        'modern',
        { type: 'streamable-http', url: short.url },
        { protocol: '2026-07-28' },
      );
      await client.connect();
      const listings = () => short.methods.filter((method) => method === 'tools/list').length;
      await client.listTools();
      await client.listTools();
      expect(listings()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 120));
      await client.listTools();
      expect(listings()).toBe(2);
      await client.close();
    } finally {
      await short.stop();
    }
  });

  it('keeps the cache without a ttlMs from the server (0: no promise)', async () => {
    const client = modernClient();
    await client.connect();
    const before = server.methods.filter((method) => method === 'tools/list').length;
    await client.listTools();
    await client.listTools();
    expect(server.methods.filter((method) => method === 'tools/list').length).toBe(before + 1);
    await client.close();
  });

  it('runs BaseTools with permissions of an untrusted remote server and the caller clock', async () => {
    const client = modernClient();
    await client.connect();
    const tools = await client.tools({ prefix: true });
    const echo = tools.find((tool) => tool.mcpName === 'echo');
    expect(echo?.requiredPermissions).toEqual(['write', 'delete', 'network']);
    const context = createToolContext();
    expect(await echo?.execute({ message: 'tool' }, context)).toBe('Echo: tool');
    await client.close();
  });
});
