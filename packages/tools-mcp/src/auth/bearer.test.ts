import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolError } from '../index.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

const goodToken = 'good-token-0123456789';

describe('auth { type: bearer } against an HTTP MCP server that checks the token', () => {
  let server: ProtectedServer;
  beforeAll(async () => {
    server = await startProtectedServer({
      verify: (token) =>
        token === goodToken
          ? { ok: true, scopes: ['read'] }
          : { ok: false, error: 'invalid_token', description: `token ${token} is unknown` },
      authorizationServers: () => ['http://127.0.0.1:1/'],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('sends the token and calls a tool', async () => {
    const client = new McpClient('protected', {
      type: 'streamable-http',
      url: server.url,
      auth: { type: 'bearer', token: goodToken },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(server.authorizations.at(-1)).toBe(`Bearer ${goodToken}`);
  });

  it('takes the token from getToken()', async () => {
    let asked = 0;
    const client = new McpClient('protected', {
      type: 'streamable-http',
      url: server.url,
      auth: {
        type: 'bearer',
        getToken: async () => {
          asked += 1;
          return goodToken;
        },
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(asked).toBeGreaterThan(0);
  });

  it('without auth: auth_required saying what to configure, no SSE fallback', async () => {
    const client = new McpClient('protected', { type: 'streamable-http', url: server.url });
    const error = (await client.connect().catch((caught: unknown) => caught)) as McpToolError;
    expect(error.code).toBe('auth_required');
    expect(error.message).toMatch(
      /MCP server 'protected' requires authorization: it answered HTTP 401/,
    );
    expect(error.message).toContain("{ type: 'bearer', token }");
    expect(error.message).toContain('authorization_code');
  });

  it('a refused token: auth_failed with the server error, the token scrubbed', async () => {
    const wrong = 'wrong-token-abcdefgh';
    const client = new McpClient('protected', {
      type: 'streamable-http',
      url: server.url,
      auth: { type: 'bearer', token: wrong },
    });
    const error = (await client.connect().catch((caught: unknown) => caught)) as McpToolError;
    expect(error.code).toBe('auth_failed');
    expect(error.message).toContain('invalid_token');
    expect(error.message).toContain('token [redacted] is unknown');
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(String(error.cause ?? '')).not.toContain(wrong);
  });
});
