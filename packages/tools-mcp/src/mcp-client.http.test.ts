import type { ToolError } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from './index.js';
import { freePort, type HttpServerProcess, startEverythingHttp } from './test-support/servers.js';

describe('McpClient over Streamable HTTP (server-everything streamableHttp)', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startEverythingHttp('streamableHttp');
  });
  afterAll(async () => {
    await server.stop();
  });

  it('connects, lists, calls with progress, and DELETEs the session on close', async () => {
    const client = new McpClient('remote', {
      type: 'streamable-http',
      url: server.url,
      headers: { Authorization: 'Bearer secret-token-123' },
    });
    await client.connect();
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain('get-sum');
    expect((await client.callTool('get-sum', { a: 40, b: 2 })).value).toBe(
      'The sum of 40 and 2 is 42.',
    );
    const progress: number[] = [];
    await client.callTool(
      'trigger-long-running-operation',
      { duration: 0.6, steps: 3 },
      { onProgress: (update) => progress.push(update.progress) },
    );
    expect(progress).toEqual([1, 2, 3]);
    const tools = await client.tools({ prefix: true });
    expect(tools.find((tool) => tool.mcpName === 'get-sum')?.name).toBe('remote__get-sum');
    await client.close();
    await client.close();
    await expect
      .poll(() => server.output(), { timeout: 5_000 })
      .toMatch(/session termination request/);
  });

  it('cancels a call over HTTP with cancelled', async () => {
    const client = new McpClient('remote', { type: 'streamable-http', url: server.url });
    await client.connect();
    const controller = new AbortController();
    const call = client.callTool(
      'trigger-long-running-operation',
      { duration: 5, steps: 10 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const error = (await call.catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('cancelled');
    expect((await client.callTool('echo', { message: 'ok' })).value).toBe('Echo: ok');
    await client.close();
  });
});

describe('McpClient HTTP+SSE fallback (server-everything sse)', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startEverythingHttp('sse');
  });
  afterAll(async () => {
    await server.stop();
  });

  it('falls back to the deprecated HTTP+SSE transport for a server that refuses Streamable HTTP', async () => {
    const client = new McpClient('legacy', { type: 'streamable-http', url: server.url });
    await client.connect();
    expect((await client.callTool('echo', { message: 'old' })).value).toBe('Echo: old');
    await client.close();
  });

  it('does not fall back when told not to', async () => {
    const client = new McpClient('legacy', {
      type: 'streamable-http',
      url: server.url,
      fallbackToSse: false,
    });
    const error = (await client.connect().catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('mcp_error');
    expect(error.message).toMatch(/'legacy'/);
  });
});

describe('McpClient HTTP failures', () => {
  it('reports a refused connection as mcp_error at once, without the headers', async () => {
    const port = await freePort();
    const client = new McpClient(
      'offline',
      {
        type: 'streamable-http',
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: 'Bearer secret-token-123' },
      },
      { timeoutMs: 20_000 },
    );
    const error = (await client.connect().catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('mcp_error');
    expect(error.message).toMatch(/'offline'/);
    expect(error.message, error.message).toMatch(/ECONNREFUSED|fetch failed/);
    expect(`${error.message} ${JSON.stringify(error)} ${String(error.stack)}`).not.toContain(
      'secret-token-123',
    );
  });

  it('keeps URL credentials and query tokens out of error messages', async () => {
    const port = await freePort();
    const client = new McpClient('offline', {
      type: 'streamable-http',
      url: `http://user:pa55word@127.0.0.1:${port}/mcp?token=query-secret`,
    });
    const error = (await client.connect().catch((caught: unknown) => caught)) as ToolError;
    expect(error.code).toBe('mcp_error');
    const everything = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
    for (const secret of ['pa55word', 'query-secret']) expect(everything).not.toContain(secret);
  });
});
