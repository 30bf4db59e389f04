// SEP-2352: the protected resource moves to another authorization server. The client must
// discover the new one, register there and sign in again, and present nothing of the old
// one (client id, refresh token) to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../index.js';
import {
  type AuthorizationServer,
  signInWithFetch,
  startAuthorizationServer,
} from '../test-support/authorization-server.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

const redirectUrl = 'http://127.0.0.1:49998/callback';

describe('the authorization server changes (SEP-2352)', () => {
  let first: AuthorizationServer;
  let second: AuthorizationServer;
  let mcp: ProtectedServer;
  let current: () => AuthorizationServer;
  beforeAll(async () => {
    first = await startAuthorizationServer({ resources: () => [mcp.url] });
    second = await startAuthorizationServer({ resources: () => [mcp.url] });
    current = () => first;
    mcp = await startProtectedServer({
      verify: (token, resource) => current().verify(token, resource),
      authorizationServers: () => [current().issuer],
    });
  });
  afterAll(async () => {
    await Promise.all([mcp.stop(), first.stop(), second.stop()]);
  });

  it('registers with the new server and signs in there, presenting nothing of the old one', async () => {
    const signIns: string[] = [];
    const client = new McpClient('docs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'authorization_code',
        redirectUrl,
        scope: 'read offline_access',
        onAuthorize: (url) => {
          signIns.push(url.origin);
          return signInWithFetch(url, redirectUrl);
        },
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    current = () => second;
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(signIns).toEqual([first.issuer, second.issuer]);
    expect(first.registeredApplicationTypes).toHaveLength(1);
    expect(second.registeredApplicationTypes).toHaveLength(1);
    // The old server's refresh token went nowhere: the new server saw only the code grant.
    expect(second.grants).toEqual(['authorization_code']);
  });
});
