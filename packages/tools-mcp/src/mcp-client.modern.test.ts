import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolError } from './index.js';
import { type ModernHttpServer, startModernHttp } from './test-support/modern-server.js';

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
