// Token lifetime against a real authorization server (oidc-provider, 2 s access tokens):
// refresh before expiry, refresh once on a 401, revocation, the token store, and the
// authorization responses the client must refuse (no PKCE, another issuer).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryTokenStore,
  type McpAuthorizationCodeAuth,
  McpClient,
  type McpTokenKey,
  type McpTokens,
  type McpToolError,
} from '../index.js';
import {
  type AuthorizationServer,
  signInWithFetch,
  startAuthorizationServer,
} from '../test-support/authorization-server.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

const redirectUrl = 'http://127.0.0.1:49998/callback';
const ttlSeconds = 2;

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  return (await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  )) as McpToolError;
}

describe('token lifetime against oidc-provider', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedServer;
  const revokedAtServer = new Set<string>();
  beforeAll(async () => {
    as = await startAuthorizationServer({
      resources: () => [mcp.url],
      accessTokenTtlSeconds: ttlSeconds,
      clients: [
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
    mcp = await startProtectedServer({
      verify: (token, resource) =>
        token !== undefined && revokedAtServer.has(token)
          ? { ok: false, error: 'invalid_token', description: 'revoked' }
          : as.verify(token, resource),
      authorizationServers: () => [as.issuer],
    });
  });
  afterAll(async () => {
    await Promise.all([mcp.stop(), as.stop()]);
  });

  /** An authorization_code auth whose sign-ins are counted, with a store that records tokens. */
  function signIn(onCallback: (url: URL) => URL = (url) => url) {
    const store = createMemoryTokenStore();
    const saved: McpTokens[] = [];
    const auth: McpAuthorizationCodeAuth = {
      type: 'authorization_code',
      clientId: 'app',
      redirectUrl,
      scope: 'read',
      tokenStore: {
        get: (key: McpTokenKey) => store.get(key),
        set: (key: McpTokenKey, tokens: McpTokens) => {
          saved.push(tokens);
          return store.set(key, tokens);
        },
        delete: (key: McpTokenKey) => store.delete(key),
      },
      onAuthorize: async (url) => {
        signIns.count += 1;
        return onCallback(new URL(await signInWithFetch(url, redirectUrl)));
      },
    };
    const signIns = { count: 0 };
    return { auth, saved, signIns };
  }

  it('refreshes the token before it expires, without a new sign-in', async () => {
    const { auth, saved, signIns } = signIn();
    const client = new McpClient('docs', { type: 'streamable-http', url: mcp.url, auth });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    const grants = as.grants.length;
    await sleep((ttlSeconds * 1000) / 2 + 200);
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(as.grants.slice(grants)).toEqual(['refresh_token']);
    expect(signIns.count).toBe(1);
    expect(saved).toHaveLength(2);
    expect(saved[1]?.accessToken).not.toBe(saved[0]?.accessToken);
  });

  it('refreshes once on a 401 and retries the request', async () => {
    const { auth, saved, signIns } = signIn();
    const client = new McpClient('docs', { type: 'streamable-http', url: mcp.url, auth });
    await client.connect();
    const first = saved[0]?.accessToken ?? '';
    revokedAtServer.add(first);
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(signIns.count).toBe(1);
    expect(saved).toHaveLength(2);
  });

  it('after the refresh token is revoked, signs in again', async () => {
    const { auth, saved, signIns } = signIn();
    const client = new McpClient('docs', { type: 'streamable-http', url: mcp.url, auth });
    await client.connect();
    const refreshToken = saved[0]?.refreshToken ?? '';
    expect(refreshToken).not.toBe('');
    const revoked = await fetch(`${as.issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, client_id: 'app' }),
    });
    expect(revoked.status).toBe(200);
    await sleep((ttlSeconds * 1000) / 2 + 200);
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(signIns.count).toBe(2);
  });

  it('a token store shared by two clients signs in once', async () => {
    const { auth, signIns } = signIn();
    for (const name of ['one', 'two']) {
      const client = new McpClient(name, {
        type: 'streamable-http',
        url: mcp.url,
        auth: { ...auth },
      });
      await client.connect();
      expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
      await client.close();
    }
    expect(signIns.count).toBe(1);
  });

  it('refuses an authorization response from another issuer (RFC 9207)', async () => {
    const { auth } = signIn((url) => {
      url.searchParams.set('iss', 'http://127.0.0.1:1');
      return url;
    });
    const error = await failure(
      new McpClient('docs', { type: 'streamable-http', url: mcp.url, auth }).connect(),
    );
    expect(error.code).toBe('auth_failed');
    expect(error.message).toMatch(/from the issuer 'http:\/\/127\.0\.0\.1:1'.*RFC 9207/);
  });

  it('refuses an authorization server that advertises no PKCE S256, before the sign-in', async () => {
    const metadata = createServer((request, response) => {
      const origin = `http://127.0.0.1:${(metadata.address() as AddressInfo).port}`;
      if (request.url !== '/.well-known/oauth-authorization-server')
        return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: origin,
          authorization_endpoint: `${origin}/auth`,
          token_endpoint: `${origin}/token`,
          response_types_supported: ['code'],
        }),
      );
    });
    metadata.listen(0, '127.0.0.1');
    await once(metadata, 'listening');
    const noPkce = await startProtectedServer({
      verify: () => ({ ok: false, error: 'invalid_token', description: 'no' }),
      authorizationServers: () => [`http://127.0.0.1:${(metadata.address() as AddressInfo).port}`],
    });
    try {
      const { auth, signIns } = signIn();
      const error = await failure(
        new McpClient('old', { type: 'streamable-http', url: noPkce.url, auth }).connect(),
      );
      expect(error.code).toBe('auth_failed');
      expect(error.message).toMatch(/does not advertise PKCE with S256.*forbids/);
      expect(signIns.count).toBe(0);
    } finally {
      await noPkce.stop();
      metadata.close();
    }
  });
});
