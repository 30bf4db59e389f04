// The JWT bearer grant (RFC 7523 §2.1) against oidc-provider with the grant registered: the
// application's assertion callback is asked at each token request, and a refusal is reported
// once, not retried.
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type McpAssertionRequest,
  McpClient,
  type McpNamedGrantAuth,
  type McpToolError,
} from '../index.js';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from '../test-support/authorization-server.js';
import { type ProtectedServer, startProtectedServer } from '../test-support/protected-server.js';

const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

describe('jwt_bearer against oidc-provider', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedServer;
  let sign: (audience: string) => Promise<string>;
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    const publicJwk: JWK = await exportJWK(pair.publicKey);
    sign = (audience) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer('https://workload.example')
        .setSubject('job-7')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('2m')
        .setJti(crypto.randomUUID())
        .sign(pair.privateKey);
    as = await startAuthorizationServer({
      resources: () => [mcp.url],
      jwtBearerKey: publicJwk,
      clients: [
        {
          client_id: 'workload',
          token_endpoint_auth_method: 'none',
          grant_types: [jwtBearer],
          redirect_uris: [],
          response_types: [],
        },
      ],
    });
    mcp = await startProtectedServer({
      verify: (token, resource) => as.verify(token, resource),
      authorizationServers: () => [as.issuer],
    });
  });
  afterAll(async () => {
    await Promise.all([mcp.stop(), as.stop()]);
  });

  it('buys a token with the assertion the callback returns, asking it per token request', async () => {
    const requests: McpAssertionRequest[] = [];
    const before = as.grants.length;
    const client = new McpClient('jobs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'jwt_bearer',
        clientId: 'workload',
        scope: 'read',
        assertion: (request) => {
          requests.push(request);
          return sign(request.issuer);
        },
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(as.grants.slice(before)).toEqual([jwtBearer]);
    expect(requests).toEqual([
      {
        issuer: as.issuer,
        tokenEndpoint: `${as.issuer}/token`,
        resource: mcp.url,
        scope: 'read',
      },
    ]);
  });

  it("takes the grant named as the issue names it, { grant: 'jwt_bearer' }, the same as type", async () => {
    const before = as.grants.length;
    let asked = 0;
    const client = new McpClient('jobs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        grant: 'jwt_bearer',
        clientId: 'workload',
        scope: 'read',
        assertion: (request) => {
          asked += 1;
          return sign(request.issuer);
        },
      },
    });
    await client.connect();
    expect((await client.callTool('whoami', {})).value).toBe('scopes: read');
    await client.close();
    expect(as.grants.slice(before)).toEqual([jwtBearer]);
    expect(asked).toBe(1);
    const disagreeing = {
      type: 'client_credentials',
      grant: 'jwt_bearer',
      clientId: 'workload',
      assertion: () => 'x',
    } as unknown as McpNamedGrantAuth;
    expect(
      () => new McpClient('jobs', { type: 'streamable-http', url: mcp.url, auth: disagreeing }),
    ).toThrow(/auth\.type 'client_credentials' and auth\.grant 'jwt_bearer' disagree/);
    const unknown = { grant: 'password', clientId: 'x' } as unknown as McpNamedGrantAuth;
    expect(
      () => new McpClient('jobs', { type: 'streamable-http', url: mcp.url, auth: unknown }),
    ).toThrow(TypeError);
  });

  it('an assertion the server refuses: auth_failed with its error, asked once, not retried', async () => {
    let asked = 0;
    const client = new McpClient('jobs', {
      type: 'streamable-http',
      url: mcp.url,
      auth: {
        type: 'jwt_bearer',
        clientId: 'workload',
        assertion: () => {
          asked += 1;
          return sign('https://wrong-audience.example');
        },
      },
    });
    const error = (await client.connect().then(
      () => new Error('expected a failure'),
      (caught: unknown) => caught,
    )) as McpToolError;
    expect(error.code).toBe('auth_failed');
    expect(error.message).toMatch(/refused the JWT bearer assertion \(invalid_grant/);
    expect(asked).toBe(1);
    await client.close();
  });

  it('an assertion callback that throws or returns nothing: auth_failed naming it', async () => {
    for (const assertion of [
      () => {
        throw new Error('no workload identity here');
      },
      () => '',
    ]) {
      const client = new McpClient('jobs', {
        type: 'streamable-http',
        url: mcp.url,
        auth: { type: 'jwt_bearer', clientId: 'workload', assertion },
      });
      const error = (await client.connect().then(
        () => new Error('expected a failure'),
        (caught: unknown) => caught,
      )) as McpToolError;
      expect(error.code).toBe('auth_failed');
      expect(error.message).toMatch(
        /auth\.assertion\(\) (failed: .*no workload identity|returned no assertion)/,
      );
      await client.close();
    }
  });
});
