import { once } from 'node:events';
import { createServer } from 'node:http';
import { inspect } from 'node:util';
import type { ToolError } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpClientOptions, McpServers, type McpToolError } from '../index.js';
import { freePort, type HttpServerProcess, startEverythingHttp } from '../test-support/servers.js';

describe.each(['legacy', 'auto'] as const)(
  'McpClient (protocol: %s) over Streamable HTTP (server-everything streamableHttp)',
  (protocol) => {
    let server: HttpServerProcess;
    beforeAll(async () => {
      server = await startEverythingHttp('streamableHttp');
    });
    afterAll(async () => {
      await server.stop();
    });

    it('connects, lists, calls with progress, and DELETEs the session on close', async () => {
      const client = new McpClient(
        'remote',
        {
          type: 'streamable-http',
          url: server.url,
          headers: { Authorization: 'Bearer secret-token-123' },
        },
        { protocol },
      );
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
      const client = new McpClient(
        'remote',
        { type: 'streamable-http', url: server.url },
        { protocol },
      );
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
  },
);

describe('McpClient when the HTTP server dies mid-call', () => {
  /** A client of a server that dies during a long call; resolves once that call failed. */
  async function dyingServer(options: McpClientOptions) {
    const server = await startEverythingHttp('streamableHttp');
    // Far beyond the test's own limit: the call must fail because the server went away.
    const client = new McpClient(
      'remote',
      { type: 'streamable-http', url: server.url },
      { timeoutMs: 600_000, ...options },
    );
    await client.connect();
    let started: () => void = () => {};
    const progressed = new Promise<void>((resolve) => {
      started = resolve;
    });
    const pending = client
      .callTool(
        'trigger-long-running-operation',
        { duration: 30, steps: 30 },
        { onProgress: () => started() },
      )
      .catch((caught: unknown) => caught);
    await progressed;
    await server.stop();
    return { server, client, error: (await pending) as McpToolError };
  }
  const echo = (client: McpClient) =>
    client.callTool('echo', { message: 'x' }).catch((caught: unknown) => caught as McpToolError);

  it('with default options, rejects the pending call (retryable mcp_error) at once and marks nothing lost', async () => {
    const { server, client, error } = await dyingServer({});
    try {
      expect(error.code).toBe('mcp_error');
      expect(client.isConnected).toBe(true);
      // The next request fails too, on its own (one of 5 failures over 10 s), and nothing is lost.
      const later = (await echo(client)) as McpToolError;
      expect(later.code).toBe('mcp_error');
      expect(later.message).not.toMatch(/unavailable/);
      expect(client.isConnected).toBe(true);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it('marks it lost once unreachableAfter says so, then fails fast until reconnect()', async () => {
    const { server, client, error } = await dyingServer({
      unreachableAfter: { failures: 2, windowMs: 0 },
    });
    try {
      expect(error.code).toBe('mcp_error');
      for (let attempt = 0; attempt < 10 && client.isConnected; attempt += 1) await echo(client);
      expect(client.isConnected).toBe(false);
      const later = (await echo(client)) as McpToolError;
      expect(later.code).toBe('mcp_error');
      expect(later.message).toMatch(/'remote'.*became unreachable.*unavailable.*reconnect\(\)/);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe('McpServers with an HTTP entry', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startEverythingHttp('streamableHttp');
  });
  afterAll(async () => {
    await server.stop();
  });

  it('connects { url, headers } entries next to stdio ones and prefixes their tools', async () => {
    const servers = new McpServers({
      mcpServers: {
        remote: { url: server.url, headers: { Authorization: 'Bearer t-1' } },
        offline: { url: `http://127.0.0.1:${await freePort()}/mcp` },
      },
    });
    try {
      const { connected, failed } = await servers.connect();
      expect(connected).toEqual(['remote']);
      expect(failed.map((failure) => [failure.name, failure.error.code])).toEqual([
        ['offline', 'mcp_error'],
      ]);
      const names = (await servers.tools()).map((tool) => tool.name);
      expect(names).toContain('remote__get-sum');
    } finally {
      await servers.close();
    }
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
      // Far beyond the test's own limit: only an immediate failure passes.
      { connectTimeoutMs: 600_000 },
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
    // inspect() is what a logger prints: the whole cause chain, stacks included.
    const everything = `${error.message} ${JSON.stringify(error)} ${inspect(error, { depth: 10 })}`;
    for (const secret of ['pa55word', 'query-secret']) expect(everything).not.toContain(secret);
  });

  it('keeps header values out of errors and reports even when the server echoes them back', async () => {
    const hostile = createServer((request, response) => {
      response.writeHead(403, { 'content-type': 'text/plain' });
      response.end(
        `forbidden for ${request.headers.authorization} and ${request.headers['x-api-key']}`,
      );
    });
    hostile.listen(0, '127.0.0.1');
    await once(hostile, 'listening');
    const address = hostile.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const reports: Error[] = [];
    const client = new McpClient(
      'hostile',
      {
        type: 'streamable-http',
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: 'Bearer secret-token-123', 'X-Api-Key': 'key-456789' },
        fallbackToSse: false,
      },
      { onError: (report) => reports.push(report) },
    );
    try {
      const error = (await client.connect().catch((caught: unknown) => caught)) as ToolError;
      expect(error.code).toBe('mcp_error');
      expect(error.message).toMatch(/'hostile'.*403/);
      expect(error.message).toContain('[redacted]');
      const printed = [error, ...reports].map((item) => inspect(item, { depth: 10 })).join('\n');
      for (const secret of ['secret-token-123', 'key-456789'])
        expect(printed).not.toContain(secret);
    } finally {
      await client.close();
      hostile.close();
    }
  });
});
