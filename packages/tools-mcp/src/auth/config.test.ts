import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolError, parseMcpServersConfig } from '../index.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

describe('auth on mcpServers entries', () => {
  let server: ProtectedServer;
  beforeAll(async () => {
    server = await startProtectedServer({
      verify: (token) =>
        token === 'from-the-environment'
          ? { ok: true, scopes: ['read'] }
          : { ok: false, error: 'invalid_token', description: 'unknown' },
      authorizationServers: () => ['http://127.0.0.1:1/'],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('a bearer token from the environment reaches the server', async () => {
    const [entry] = parseMcpServersConfig(
      {
        mcpServers: {
          crm: {
            url: server.url,
            auth: {
              type: 'bearer', // biome-ignore lint/suspicious/noTemplateCurlyInString: the mcpServers variable syntax
              token: '${env:CRM_TOKEN}',
            },
          },
        },
      },
      { CRM_TOKEN: 'from-the-environment' },
    );
    if (entry === undefined) throw new Error('no entry');
    const client = new McpClient(entry.name, entry.transport);
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
  });

  it('names the field of a bad auth', () => {
    const parse = (auth: unknown) => () =>
      parseMcpServersConfig({ mcpServers: { crm: { url: server.url, auth } } }, {});
    expect(parse({ type: 'password' })).toThrow(
      /server 'crm': "auth.type" must be 'bearer', 'client_credentials' or 'authorization_code'/,
    );
    expect(parse({ type: 'client_credentials' })).toThrow(
      /"auth.clientId" must be a non-empty string/,
    );
    expect(parse({ type: 'bearer', token: 7 })).toThrow(/"auth.token" must be a non-empty string/);
    expect(parse('token')).toThrow(/"auth" must be a JSON object/);
  });

  it('takes "dpop": true on the OAuth grants, and names a mistyped one', () => {
    const [entry] = parseMcpServersConfig(
      {
        mcpServers: {
          crm: { url: server.url, auth: { type: 'client_credentials', clientId: 'a', dpop: true } },
        },
      },
      {},
    );
    const transport = entry?.transport as { auth?: { dpop?: unknown } } | undefined;
    expect(transport?.auth?.dpop).toBe(true);
    expect(() =>
      parseMcpServersConfig(
        {
          mcpServers: {
            crm: {
              url: server.url,
              auth: { type: 'client_credentials', clientId: 'a', dpop: 'yes' },
            },
          },
        },
        {},
      ),
    ).toThrow(/"auth.dpop" must be true or false/);
  });

  it('an authorization_code entry without the application onAuthorize: auth_required', async () => {
    const [entry] = parseMcpServersConfig(
      {
        mcpServers: {
          docs: {
            url: server.url,
            auth: {
              type: 'authorization_code',
              clientId: 'app',
              redirectUrl: 'http://127.0.0.1:1/cb',
            },
          },
        },
      },
      {},
    );
    expect(entry?.transport).toMatchObject({
      auth: { type: 'authorization_code', clientId: 'app' },
    });
    const auth = entry?.transport.type === 'streamable-http' ? entry.transport.auth : undefined;
    if (auth?.type !== 'authorization_code') throw new Error('no authorization_code auth');
    const error = (await auth
      .onAuthorize(new URL('http://127.0.0.1:1/auth'))
      .catch((caught: unknown) => caught)) as McpToolError;
    expect(error.code).toBe('auth_required');
    expect(error.message).toMatch(/'docs' requires a person to sign in.*set no onAuthorize/);
  });
});
