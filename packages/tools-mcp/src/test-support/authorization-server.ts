// A real authorization server for the tests: oidc-provider (a certified OpenID provider) on
// 127.0.0.1, issuing JWT access tokens for the resources the test allows, with the
// development sign-in and consent pages, which `signInWithFetch` drives like a browser.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, importJWK, type JWK, jwtVerify } from 'jose';
import Provider, { type Client, errors } from 'oidc-provider';
import type { TokenVerdict } from './protected-server.js';

/** Options of `startAuthorizationServer`. */
export interface AuthorizationServerOptions {
  /** The resource indicators it issues tokens for (others: `invalid_target`). */
  readonly resources: () => readonly string[];
  /** Clients registered up front (oidc-provider client metadata). */
  readonly clients?: readonly Record<string, unknown>[];
  /** Access token lifetime in seconds (default 3600). */
  readonly accessTokenTtlSeconds?: number;
  /**
   * Offers the jwt-bearer grant (RFC 7523 §2.1): assertions signed by this public key, with
   * this server's issuer as `aud`, buy a JWT access token for the `resource`.
   */
  readonly jwtBearerKey?: JWK;
  /**
   * DPoP (RFC 9449, oidc-provider's `features.dPoP`): off by default; `requireNonce` makes the
   * token endpoint answer `use_dpop_nonce` to a proof without its current nonce.
   */
  readonly dpop?: { readonly requireNonce?: boolean };
}

/** A running authorization server. */
export interface AuthorizationServer {
  readonly issuer: string;
  /** Grants the token endpoint issued, by grant type, in order. */
  readonly grants: string[];
  /** The `application_type` of each client registered dynamically, in order. */
  readonly registeredApplicationTypes: string[];
  /** Checks a JWT access token as a resource server must: signature, issuer, audience, expiry. */
  verify(token: string | undefined, resource: string): Promise<TokenVerdict>;
  stop(): Promise<void>;
}

/** Starts oidc-provider on a free port of 127.0.0.1. */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (
    _request,
    response,
  ) => void response.writeHead(503).end();
  const server = createServer((request, response) => handler(request, response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ttl = options.accessTokenTtlSeconds ?? 3600;
  const provider = new Provider(issuer, {
    clients: [...(options.clients ?? [])] as never,
    findAccount: (_context: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id }),
    }),
    scopes: ['openid', 'offline_access', 'read', 'admin'],
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      dPoP: {
        enabled: options.dpop !== undefined,
        ...(options.dpop?.requireNonce === true
          ? { nonceSecret: randomBytes(32), requireNonce: () => true }
          : {}),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context: unknown, indicator: string) => {
          if (!options.resources().includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: 'read admin',
            audience: indicator,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
          };
        },
      },
    },
    issueRefreshToken: (_context: unknown, client: Client) =>
      client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: ttl, ClientCredentials: ttl },
  } as never);
  if (options.jwtBearerKey !== undefined) {
    registerJwtBearer(provider, issuer, options.jwtBearerKey, options, ttl);
  }
  const grants: string[] = [];
  provider.on('grant.success', (context: { oidc: { params?: { grant_type?: unknown } } }) => {
    grants.push(String(context.oidc.params?.grant_type));
  });
  const registeredApplicationTypes: string[] = [];
  provider.on(
    'registration_create.success',
    (_context: unknown, client: { applicationType?: unknown }) => {
      registeredApplicationTypes.push(String(client.applicationType));
    },
  );
  handler = provider.callback();
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  return {
    issuer,
    grants,
    registeredApplicationTypes,
    verify: async (token, resource) => {
      if (token === undefined)
        return { ok: false, error: 'invalid_request', description: 'no token' };
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience: resource });
        const jkt = (payload.cnf as { jkt?: unknown } | undefined)?.jkt;
        return {
          ok: true,
          scopes: String(payload.scope ?? '').split(' '),
          ...(typeof jkt === 'string' ? { jkt } : {}),
        };
      } catch (error) {
        return {
          ok: false,
          error: 'invalid_token',
          description: error instanceof Error ? error.message : 'bad token',
        };
      }
    },
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** RFC 7523 §2.1. */
const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

interface GrantContext {
  oidc: { client: unknown; params: Record<string, unknown> };
  body: unknown;
}
interface IssuingProvider {
  registerGrantType(
    name: string,
    handler: (context: GrantContext) => Promise<void>,
    parameters: readonly string[],
  ): void;
  ClientCredentials: new (init: {
    client: unknown;
    scope?: string;
  }) => {
    resourceServer: unknown;
    scope?: string;
    expiration: number;
    tokenType: string;
    save(): Promise<string>;
  };
  ResourceServer: new (identifier: string, data: Record<string, unknown>) => unknown;
}

function registerJwtBearer(
  provider: Provider,
  issuer: string,
  key: JWK,
  options: AuthorizationServerOptions,
  ttl: number,
): void {
  const issuing = provider as unknown as IssuingProvider;
  const seen = new Set<string>();
  issuing.registerGrantType(
    jwtBearerGrant,
    async (context) => {
      const { params, client } = context.oidc;
      let jti: unknown;
      try {
        ({
          payload: { jti },
        } = await jwtVerify(String(params.assertion), await importJWK(key, 'ES256'), {
          audience: issuer,
        }));
      } catch (error) {
        throw new errors.InvalidGrant(
          `assertion rejected: ${error instanceof Error ? error.message : 'bad'}`,
        );
      }
      if (typeof jti !== 'string' || seen.has(jti))
        throw new errors.InvalidGrant('assertion replayed');
      seen.add(jti);
      const resource = String(params.resource);
      if (!options.resources().includes(resource)) throw new errors.InvalidTarget();
      const scope = typeof params.scope === 'string' ? params.scope : 'read';
      const token = new issuing.ClientCredentials({ client, scope });
      token.resourceServer = new issuing.ResourceServer(resource, {
        scope: 'read admin',
        audience: resource,
        accessTokenTTL: ttl,
        accessTokenFormat: 'jwt',
      });
      const value = await token.save();
      context.body = {
        access_token: value,
        token_type: token.tokenType,
        expires_in: token.expiration,
        scope,
      };
    },
    ['assertion', 'scope', 'resource'],
  );
}

/**
 * Follows an authorization URL as a browser would, signing in as `login` and consenting on
 * oidc-provider's development pages, until the redirect to `redirectUrl`; returns that URL.
 */
export async function signInWithFetch(
  authorizationUrl: URL,
  redirectUrl: string,
  login = 'alice',
): Promise<string> {
  const cookies = new Map<string, string>();
  let next: { url: string; init: RequestInit } = { url: String(authorizationUrl), init: {} };
  for (let step = 0; step < 20; step += 1) {
    if (next.url.startsWith(redirectUrl)) return next.url;
    const headers = new Headers(next.init.headers);
    headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(next.url, { ...next.init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair !== undefined && at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (location !== null) {
      next = { url: new URL(location, next.url).toString(), init: {} };
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    if (action === undefined || prompt === undefined)
      throw new Error(`no form on ${next.url}: ${response.status} ${page.slice(0, 300)}`);
    const form = new URLSearchParams({
      prompt,
      ...(prompt === 'login' ? { login, password: 'x' } : {}),
    });
    next = {
      url: new URL(action.replace(/&amp;/g, '&'), next.url).toString(),
      init: {
        method: 'POST',
        body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
    };
  }
  throw new Error('sign-in did not reach the redirect in 20 steps');
}
