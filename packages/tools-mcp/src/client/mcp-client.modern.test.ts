import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, McpServers, type McpToolError } from '../index.js';
import { type ModernHttpServer, startModernHttp } from '../test-support/modern-server.js';
import { type HttpServerProcess, startEverythingHttp } from '../test-support/servers.js';

describe('the legacy engine against a server that speaks only 2026-07-28 (v2 SDK, HTTP)', () => {
  let server: ModernHttpServer;
  beforeAll(async () => {
    server = await startModernHttp({ legacy: 'reject' });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('fails with mcp_error naming the versions the server supports and protocol: auto, without SSE fallback', async () => {
    const client = new McpClient('modern', { type: 'streamable-http', url: server.url });
    const error = (await client.connect().catch((caught: unknown) => caught)) as McpToolError;
    expect(error.code).toBe('mcp_error');
    expect(error.message).toContain("MCP server 'modern'");
    expect(error.message).toContain('2026-07-28');
    expect(error.message).toContain("protocol: 'auto'");
    expect(error.message).not.toMatch(/SSE/);
    // One POST initialize, no GET for an SSE stream.
    expect(server.requests.filter((request) => request.startsWith('GET'))).toEqual([]);
    expect(client.isConnected).toBe(false);
  });
});

describe.each([
  ['auto', 'reject'],
  ['2026-07-28', 'reject'],
  ['auto', 'stateless'],
] as const)("protocol: '%s' against a v2 SDK server (legacy: %s)", (protocol, legacy) => {
  let server: ModernHttpServer;
  beforeAll(async () => {
    server = await startModernHttp({ legacy });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('connects modern, lists, calls, and never pings', async () => {
    const client = new McpClient(
      'modern',
      { type: 'streamable-http', url: server.url },
      { protocol },
    );
    expect(client.protocolEra).toBeUndefined();
    await client.connect();
    expect(client.protocolEra).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverVersion).toEqual({ name: 'modern-test', version: '2.0.0' });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['add', 'echo', 'deploy']),
    );
    expect((await client.callTool('echo', { message: 'hi' })).value).toBe('Echo: hi');
    const tools = await client.tools({ prefix: true });
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['modern__add', 'modern__echo']),
    );
    await client.close();
    expect(server.methods).not.toContain('initialize');
    expect(server.methods).not.toContain('ping');
  });
});

describe('the v2 engine against a 2025-11-25 server (server-everything over HTTP)', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startEverythingHttp('streamableHttp');
  });
  afterAll(async () => {
    await server.stop();
  });

  it("protocol: 'auto' falls back to the legacy era and calls as before", async () => {
    const client = new McpClient(
      'everything',
      { type: 'streamable-http', url: server.url },
      { protocol: 'auto' },
    );
    await client.connect();
    expect(client.protocolEra).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect((await client.callTool('echo', { message: 'hi' })).value).toBe('Echo: hi');
    await client.close();
  });

  it("protocol: '2026-07-28' fails with mcp_error instead of falling back", async () => {
    const client = new McpClient(
      'everything',
      { type: 'streamable-http', url: server.url },
      { protocol: '2026-07-28', connectTimeoutMs: 10_000 },
    );
    const error = (await client.connect().catch((caught: unknown) => caught)) as McpToolError;
    expect(error.code).toBe('mcp_error');
    expect(client.isConnected).toBe(false);
  });
});

describe('the era of a server, remembered for the process', () => {
  it('skips the server/discover probe on reconnect', async () => {
    const server = await startModernHttp({ legacy: 'stateless' });
    try {
      const client = new McpClient(
        'modern',
        { type: 'streamable-http', url: server.url },
        { protocol: 'auto' },
      );
      await client.connect();
      const probes = server.methods.filter((method) => method === 'server/discover').length;
      expect(probes).toBe(1);
      await client.reconnect();
      expect(client.protocolEra).toBe('modern');
      expect((await client.callTool('add', { a: 2, b: 3 })).value).toBe('5');
      expect(server.methods.filter((method) => method === 'server/discover').length).toBe(probes);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});

describe('McpClientOptions.protocol', () => {
  it('refuses a value it does not know, with a TypeError', () => {
    expect(
      () =>
        new McpClient(
          'x',
          { type: 'stdio', command: 'node' },
          {
            protocol: '2025' as 'auto',
          },
        ),
    ).toThrow(TypeError);
  });
});

describe('McpServers with protocol on an mcpServers entry', () => {
  it('reaches a modern-only server through an entry with protocol: auto', async () => {
    const server = await startModernHttp({ legacy: 'reject' });
    const servers = new McpServers({
      mcpServers: {
        modern: { url: server.url, protocol: 'auto' },
        plain: { url: server.url },
      },
    });
    try {
      const result = await servers.connect();
      expect(result.connected).toEqual(['modern']);
      expect(result.failed.map((failure) => failure.error.message).join()).toContain(
        "protocol: 'auto'",
      );
      expect(servers.get('modern')?.protocolEra).toBe('modern');
      const names = (await servers.tools()).map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['modern__add', 'modern__echo']));
      expect(names.every((name) => name.startsWith('modern__'))).toBe(true);
    } finally {
      await servers.close();
      await server.stop();
    }
  });
});
