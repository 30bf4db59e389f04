// DPoP-bound tokens (RFC 9449) against oidc-provider with features.dPoP on (nonces required at
// the token endpoint) in front of an MCP server that verifies each proof: signature, htm, htu,
// ath, jti replay, its nonce and the token's cnf.jkt.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTokenStore, McpClient, type McpTokens, type McpToolError } from '../index.js';
import {
  type AuthorizationServer,
  signInWithFetch,
  startAuthorizationServer,
} from '../test-support/authorization-server.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

const redirectUrl = 'http://127.0.0.1:49997/callback';
const secret = 'dpop-service-secret-0123456789';

describe('DPoP against oidc-provider', () => {
  let as: AuthorizationServer;
  let bearerOnly: AuthorizationServer;
  let mcp: ProtectedServer;
  let hostile: ProtectedServer;
  let plain: ProtectedServer;
  const revoked = new Set<string>();
  const clients = [
    {
      client_id: 'service',
      client_secret: secret,
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
  ];
  beforeAll(async () => {
    as = await startAuthorizationServer({
      resources: () => [mcp.url, hostile.url],
      dpop: { requireNonce: true },
      clients,
    });
    bearerOnly = await startAuthorizationServer({ resources: () => [plain.url], clients });
    mcp = await startProtectedServer({
      // The test revokes a token so that the client refreshes it.
      verify: (token, resource) =>
        token !== undefined && revoked.has(token)
          ? { ok: false, error: 'invalid_token', description: 'revoked' }
          : as.verify(token, resource),
      authorizationServers: () => [as.issuer],
      dpop: { nonce: 'fixed' },
    });
    hostile = await startProtectedServer({
      verify: (token, resource) => as.verify(token, resource),
      authorizationServers: () => [as.issuer],
      dpop: { nonce: 'rotating' },
    });
    plain = await startProtectedServer({
      verify: (token, resource) => bearerOnly.verify(token, resource),
      authorizationServers: () => [bearerOnly.issuer],
    });
  });
  afterAll(async () => {
    await Promise.all([mcp.stop(), hostile.stop(), plain.stop(), as.stop(), bearerOnly.stop()]);
  });

  it('client_credentials: a DPoP-bound token, a fresh proof per request, both nonces honoured', async () => {
    const before = { proofs: mcp.proofs.length, grants: as.grants.length };
    const client = new McpClient('crm', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'client_credentials',
        clientId: 'service',
        clientSecret: secret,
        scope: 'read',
        dpop: true,
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(mcp.dpopErrors).toEqual([]);
    expect(as.grants.slice(before.grants)).toEqual(['client_credentials']);
    expect(mcp.nonceChallenges()).toBeGreaterThan(0);
    const proofs = mcp.proofs.slice(before.proofs);
    expect(proofs.length).toBeGreaterThan(3);
    const jtis = proofs.map((proof) => decodeJwt(proof).jti);
    expect(new Set(jtis).size).toBe(jtis.length);
    const keys = proofs.map((proof) => JSON.stringify(decodeProtectedHeader(proof).jwk));
    expect(new Set(keys).size).toBe(1);
    expect(mcp.authorizations.slice(-1)[0]).toMatch(/^DPoP /);
  });

  it('authorization_code: the refresh token is bound to the same key', async () => {
    const before = as.grants.length;
    let signIns = 0;
    const store = createMemoryTokenStore();
    const saved: McpTokens[] = [];
    const client = new McpClient('docs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'authorization_code',
        clientId: 'app',
        redirectUrl,
        scope: 'read offline_access',
        dpop: true,
        tokenStore: {
          get: (key) => store.get(key),
          set: (key, tokens) => {
            saved.push(tokens);
            return store.set(key, tokens);
          },
          delete: (key) => store.delete(key),
        },
        onAuthorize: (url) => {
          signIns += 1;
          return signInWithFetch(url, redirectUrl);
        },
      },
    });
    await client.connect();
    revoked.add(saved[0]?.accessToken ?? '');
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(saved.map((tokens) => tokens.tokenType)).toEqual(['DPoP', 'DPoP']);
    expect(signIns).toBe(1);
    expect(as.grants.slice(before)).toEqual(['authorization_code', 'refresh_token']);
    expect(mcp.dpopErrors).toEqual([]);
  });

  it('a server that asks for a new nonce on every request: one retry, then auth_failed', async () => {
    const client = new McpClient('hostile', {
      type: 'streamable-http',
      url: hostile.url,
      auth: { type: 'client_credentials', clientId: 'service', clientSecret: secret, dpop: true },
    });
    const error = (await client.connect().then(
      () => new Error('expected a failure'),
      (caught: unknown) => caught,
    )) as McpToolError;
    expect(error.code).toBe('auth_failed');
    expect(error.message).toMatch(/asked for a new DPoP nonce again/);
    expect(hostile.nonceChallenges()).toBe(2);
    await client.close();
  });

  it('an authorization server without DPoP answers Bearer: the token is used as a bearer token', async () => {
    const client = new McpClient('plain', {
      type: 'streamable-http',
      url: plain.url,
      auth: {
        type: 'client_credentials',
        clientId: 'service',
        clientSecret: secret,
        scope: 'read',
        dpop: true,
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(plain.authorizations.slice(-1)[0]).toMatch(/^Bearer /);
  });

  it('an authorization server that asks for a new nonce on every token request: one retry, then auth_failed', async () => {
    let tokenRequests = 0;
    const fake = createServer((request, response) => {
      const origin = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      if (request.url === '/.well-known/oauth-authorization-server') {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: origin, token_endpoint: `${origin}/token` }));
        return;
      }
      tokenRequests += 1;
      response
        .writeHead(400, { 'content-type': 'application/json', 'dpop-nonce': `n-${tokenRequests}` })
        .end(JSON.stringify({ error: 'use_dpop_nonce', error_description: 'try again' }));
    });
    fake.listen(0, '127.0.0.1');
    await once(fake, 'listening');
    const issuer = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const behind = await startProtectedServer({
      verify: () => ({ ok: false, error: 'invalid_token', description: 'no' }),
      authorizationServers: () => [issuer],
      dpop: {},
    });
    const client = new McpClient('nonces', {
      type: 'streamable-http',
      url: behind.url,
      auth: { type: 'client_credentials', clientId: 'service', clientSecret: secret, dpop: true },
    });
    const error = (await client.connect().then(
      () => new Error('expected a failure'),
      (caught: unknown) => caught,
    )) as McpToolError;
    expect(error.code).toBe('auth_failed');
    expect(error.message).toMatch(/refused the client credentials \(use_dpop_nonce/);
    expect(tokenRequests).toBe(2);
    await client.close();
    await behind.stop();
    fake.closeAllConnections();
    fake.close();
  });
});
