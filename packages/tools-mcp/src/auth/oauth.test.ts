// OAuth 2.1 against a real authorization server (oidc-provider on 127.0.0.1) in front of an
// MCP server that verifies its JWT access tokens (signature, issuer, audience = the resource).
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTokenStore, McpClient, type McpTokens, type McpToolError } from '../index.js';
import {
  type AuthorizationServer,
  signInWithFetch,
  startAuthorizationServer,
} from '../test-support/authorization-server.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

const redirectUrl = 'http://127.0.0.1:49999/callback';
const serviceSecret = 'service-secret-0123456789abcdef';

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  return (await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  )) as McpToolError;
}

describe('OAuth against oidc-provider', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedServer;
  let other: ProtectedServer;
  let jwtKeyPem: string;
  const extraResources: string[] = [];
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    jwtKeyPem = await exportPKCS8(pair.privateKey);
    const publicJwk = await exportJWK(pair.publicKey);
    as = await startAuthorizationServer({
      resources: () => [mcp.url, other.url, ...extraResources],
      clients: [
        {
          client_id: 'service',
          client_secret: serviceSecret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
        },
        {
          client_id: 'signed-service',
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'ES256',
          jwks: { keys: [publicJwk] },
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
        },
        {
          client_id: 'app',
          application_type: 'native',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          redirect_uris: [redirectUrl],
          response_types: ['code'],
        },
      ],
    });
    const verify = (token: string | undefined, resource: string) => as.verify(token, resource);
    mcp = await startProtectedServer({
      verify,
      authorizationServers: () => [as.issuer],
      adminScope: 'admin',
    });
    other = await startProtectedServer({ verify, authorizationServers: () => [as.issuer] });
  });
  afterAll(async () => {
    await Promise.all([mcp.stop(), other.stop(), as.stop()]);
  });

  it('client_credentials with a secret: discovers, gets a token once, calls', async () => {
    const before = as.grants.length;
    const client = new McpClient('crm', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'client_credentials',
        clientId: 'service',
        clientSecret: serviceSecret,
        scope: 'read',
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(as.grants.slice(before)).toEqual(['client_credentials']);
  });

  it('client_credentials with privateKeyJwt (a PEM key, ES256)', async () => {
    const client = new McpClient('crm', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'client_credentials',
        clientId: 'signed-service',
        privateKeyJwt: { privateKey: jwtKeyPem, algorithm: 'ES256' },
        scope: 'read',
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
  });

  it('authorization_code + PKCE with a registered client, consent automated', async () => {
    const urls: URL[] = [];
    const client = new McpClient('docs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'authorization_code',
        clientId: 'app',
        redirectUrl,
        scope: 'read',
        onAuthorize: async (url) => {
          urls.push(url);
          return signInWithFetch(url, redirectUrl);
        },
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(urls).toHaveLength(1);
    const sent = urls[0]?.searchParams;
    expect(sent?.get('code_challenge_method')).toBe('S256');
    expect(sent?.get('resource')).toBe(mcp.url);
    expect(sent?.get('state')).toMatch(/^[\w-]{16,}$/);
  });

  it('authorization_code without a clientId registers the client (RFC 7591)', async () => {
    const registered = as.registeredApplicationTypes.length;
    const client = new McpClient('docs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'authorization_code',
        redirectUrl,
        scope: 'read',
        onAuthorize: (url) => signInWithFetch(url, redirectUrl),
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    // SEP-837: a loopback redirect is a native application.
    expect(as.registeredApplicationTypes.slice(registered)).toEqual(['native']);
  });

  it('refuses a callback whose state differs, saying why', async () => {
    const client = new McpClient('docs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'authorization_code',
        clientId: 'app',
        redirectUrl,
        onAuthorize: async (url) => {
          const back = new URL(await signInWithFetch(url, redirectUrl));
          back.searchParams.set('state', 'forged-state-value');
          return back;
        },
      },
    });
    const error = await failure(client.connect());
    expect(error.code).toBe('auth_failed');
    expect(error.message).toMatch(/another state than the one sent.*CSRF/);
  });

  it('refuses a callback to another place than redirectUrl', async () => {
    const client = new McpClient('docs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'authorization_code',
        clientId: 'app',
        redirectUrl,
        onAuthorize: async () => 'http://evil.example/callback?code=x&state=y',
      },
    });
    const error = await failure(client.connect());
    expect(error.code).toBe('auth_failed');
    expect(error.message).toMatch(/not to the redirectUrl.*bad redirect/);
  });

  it('step-up: a 403 insufficient_scope asks for the named scope once', async () => {
    const client = new McpClient('crm', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'client_credentials',
        clientId: 'service',
        clientSecret: serviceSecret,
        scope: 'read',
      },
    });
    await client.connect();
    expect((await client.callTool('admin', {})).value).toBe('admin done');
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read admin');
    await client.close();
  });

  it('a token for another audience is refused by the server: auth_failed, the token scrubbed', async () => {
    let token = '';
    const store = {
      get: () => undefined,
      set: (_key: unknown, tokens: McpTokens) => {
        token = tokens.accessToken;
      },
      delete: () => undefined,
    };
    const forOther = new McpClient('other', {
      type: 'streamable-http',
      url: other.url,
      auth: {
        type: 'client_credentials',
        clientId: 'service',
        clientSecret: serviceSecret,
        scope: 'read',
        tokenStore: store,
      },
    });
    await forOther.connect();
    await forOther.close();
    expect(token).not.toBe('');
    const client = new McpClient('crm', {
      type: 'streamable-http',
      url: mcp.url,
      auth: { type: 'bearer', token },
    });
    const error = await failure(client.connect());
    expect(error.code).toBe('auth_failed');
    expect(error.message).toContain('invalid_token');
    expect(error.message).toMatch(/aud/);
    expect(JSON.stringify({ message: error.message, error })).not.toContain(token);
  });

  it('a server that rejects every token: one renewal, then auth_failed (no loop)', async () => {
    const picky = await startProtectedServer({
      verify: (token) => ({
        ok: false,
        error: 'invalid_token',
        description: `never ${token ?? ''}`,
      }),
      authorizationServers: () => [as.issuer],
    });
    const allowed = as.grants.length;
    extraResources.push(picky.url);
    try {
      const client = new McpClient('picky', {
        type: 'streamable-http',
        url: picky.url,
        auth: { type: 'client_credentials', clientId: 'service', clientSecret: serviceSecret },
      });
      const error = await failure(client.connect());
      expect(error.code).toBe('auth_failed');
      expect(error.message).toContain('never [redacted]');
      expect(picky.authorizations).toHaveLength(2);
    } finally {
      await picky.stop();
    }
    expect(as.grants.length - allowed).toBeLessThanOrEqual(1);
  });

  it('a resource the authorization server does not serve: auth_failed with its error', async () => {
    const gate = await startProtectedServer({
      verify: (token, resource) => as.verify(token, resource),
      authorizationServers: () => [as.issuer],
    });
    try {
      const client = new McpClient('gate', {
        type: 'streamable-http',
        url: gate.url,
        auth: { type: 'client_credentials', clientId: 'service', clientSecret: serviceSecret },
      });
      const error = await failure(client.connect());
      expect(error.code).toBe('auth_failed');
      expect(error.message).toMatch(/refused the client credentials \(invalid_target: /);
      expect(error.message).not.toContain(serviceSecret);
    } finally {
      await gate.stop();
    }
  });

  it('protected resource metadata naming another resource is refused before any token request', async () => {
    const liar = await startProtectedServer({
      verify: (token, resource) => as.verify(token, resource),
      authorizationServers: () => [as.issuer],
      resource: () => mcp.url,
    });
    const before = as.grants.length;
    try {
      const client = new McpClient('liar', {
        type: 'streamable-http',
        url: liar.url,
        auth: { type: 'client_credentials', clientId: 'service', clientSecret: serviceSecret },
      });
      const error = await failure(client.connect());
      expect(error.code).toBe('auth_failed');
      expect(error.message).toMatch(/names the resource .* which is not this server/);
    } finally {
      await liar.stop();
    }
    expect(as.grants.length).toBe(before);
  });

  it('an OAuth access token the server echoes in an error reaches no error', async () => {
    let token = '';
    const store = createMemoryTokenStore();
    const client = new McpClient('crm', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'client_credentials',
        clientId: 'service',
        clientSecret: serviceSecret,
        scope: 'read',
        tokenStore: {
          get: (key) => store.get(key),
          set: (key, tokens) => {
            token = tokens.accessToken;
            return store.set(key, tokens);
          },
          delete: (key) => store.delete(key),
        },
      },
    });
    await client.connect();
    const error = await failure(client.callTool('leak', {}));
    await client.close();
    expect(token.length).toBeGreaterThan(20);
    expect(error.code).toBe('execution_failed');
    expect(error.message).toContain('cannot use Bearer [redacted]');
    expect(JSON.stringify(error)).not.toContain(token);
  });
});
