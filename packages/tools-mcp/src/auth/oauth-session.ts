import { describeThrown } from '@agcore/tools-core';
import { authorizeWithCode } from './authorization-code.js';
import { type Discovery, discover } from './discovery.js';
import { DpopProver } from './dpop.js';
import { type AuthScope, authFailed } from './errors.js';
import { resolveClient } from './registration.js';
import { type OAuthClient, requestTokens, type TokenRequestContext } from './token-requests.js';
import { createMemoryTokenStore } from './token-store.js';
import type {
  McpFetch,
  McpJwtBearerAuth,
  McpOAuthGrantAuth,
  McpTokenKey,
  McpTokenStore,
  McpTokens,
} from './types.js';
import {
  type BearerChallenge,
  parseBearerChallenge,
  parseDpopChallenge,
} from './www-authenticate.js';

/** The `grant_type` of RFC 7523 §2.1. */
const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The longest a token is refreshed before it expires. */
const maxRefreshSkewMs = 30_000;

/**
 * The OAuth state of one `auth` and one server, shared by all its connections: discovery,
 * the client, the tokens (kept in the token store), refresh and step-up. Token acquisition
 * runs one at a time, so concurrent 401s renew once.
 */
export class OAuthSession {
  private discovery: Discovery | undefined;
  private client: OAuthClient | undefined;
  private tokens: McpTokens | undefined;
  private refreshAt = Number.POSITIVE_INFINITY;
  private loaded = false;
  private scopes: string | undefined;
  private renewal: Promise<McpTokens> | undefined;
  private readonly store: McpTokenStore;
  private readonly key: McpTokenKey;
  private readonly dpop: DpopProver | undefined;

  constructor(
    private readonly auth: McpOAuthGrantAuth,
    private readonly serverUrl: URL,
    private readonly baseFetch: McpFetch,
    private readonly scope: AuthScope,
  ) {
    this.store = auth.tokenStore ?? createMemoryTokenStore();
    this.key = {
      serverUrl: `${serverUrl.origin}${serverUrl.pathname}`,
      clientId: auth.clientId ?? 'dynamic',
    };
    this.scopes = auth.scope;
    this.dpop = auth.dpop === undefined ? undefined : new DpopProver(auth.dpop);
  }

  /** The `fetch` the transport uses: bearer on, one renewal on a 401, one step-up on a 403. */
  readonly fetch: McpFetch = async (input, init) => {
    let tokens = await this.usableTokens();
    let response = await this.send(input, init, tokens);
    if (response.status === 401) {
      const challenge = await challengeOf(response);
      tokens = await this.renew(tokens, challenge, tokens !== undefined);
      response = await this.send(input, init, tokens);
      if (response.status === 401) {
        throw authFailed(
          this.scope,
          'the server refused a freshly issued access token',
          await challengeOf(response),
          'Check that the authorization server issues tokens for this resource.',
        );
      }
    }
    if (response.status === 403) {
      const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
      if (challenge.error !== 'insufficient_scope') return response;
      await response.body?.cancel();
      tokens = await this.stepUp(tokens, challenge);
      response = await this.send(input, init, tokens);
      if (response.status === 403) {
        throw authFailed(
          this.scope,
          `the server still refuses after asking for the scope '${this.scopes ?? ''}'`,
          await challengeOf(response),
        );
      }
    }
    return response;
  };

  /**
   * One request with the token: `Bearer`, or `DPoP` with a fresh proof, retried once with the
   * server's nonce on a 401 `use_dpop_nonce` (RFC 9449 §9); asked for a nonce again, that is
   * `auth_failed`.
   */
  private async send(
    input: string | URL,
    init: RequestInit | undefined,
    tokens: McpTokens | undefined,
  ): Promise<Response> {
    const dpop = tokens?.tokenType === 'DPoP' ? this.dpop : undefined;
    for (let attempt = 0; ; attempt += 1) {
      const headers = new Headers(init?.headers);
      if (tokens !== undefined && dpop !== undefined) {
        headers.set('authorization', `DPoP ${tokens.accessToken}`);
        headers.set('dpop', await this.proof(dpop, init?.method ?? 'GET', input, tokens));
      } else if (tokens !== undefined) {
        headers.set('authorization', `Bearer ${tokens.accessToken}`);
      }
      const response = await this.baseFetch(input, { ...init, headers });
      if (dpop === undefined) return response;
      const renewed = dpop.remember(input, response.headers.get('dpop-nonce'));
      if (
        response.status !== 401 ||
        parseDpopChallenge(response.headers.get('www-authenticate')).error !== 'use_dpop_nonce'
      ) {
        return response;
      }
      await response.body?.cancel().catch(() => undefined);
      if (!renewed || attempt > 0) {
        throw authFailed(
          this.scope,
          renewed
            ? 'the server asked for a new DPoP nonce again after the retry with its nonce'
            : 'the server asked for a DPoP nonce (use_dpop_nonce) without a DPoP-Nonce header',
        );
      }
    }
  }

  private async proof(
    dpop: DpopProver,
    method: string,
    url: string | URL,
    tokens: McpTokens,
  ): Promise<string> {
    try {
      return await dpop.proof(method, url, tokens.accessToken);
    } catch (error) {
      throw authFailed(this.scope, `could not sign a DPoP proof (${describeThrown(error)})`);
    }
  }

  /** The tokens to send: from memory or the store, refreshed when they are about to expire. */
  private async usableTokens(): Promise<McpTokens | undefined> {
    if (!this.loaded) {
      this.loaded = true;
      const stored = await this.store.get(this.key);
      if (stored !== undefined) this.keep(stored, maxRefreshSkewMs);
    }
    const tokens = this.tokens;
    if (tokens === undefined || Date.now() < this.refreshAt) return tokens;
    return this.renew(tokens, {}, false);
  }

  /** New tokens after `rejected` was refused or expired: refresh once, else a new grant. */
  private async renew(
    rejected: McpTokens | undefined,
    challenge: BearerChallenge,
    refused: boolean,
  ): Promise<McpTokens> {
    await this.settled();
    // Another request renewed them meanwhile (a refresh token is good for one use).
    if (this.tokens !== undefined && this.tokens !== rejected) return this.tokens;
    return this.oneAtATime(async () => {
      // A refused token: the resource may have moved to another authorization server.
      const moved = refused && (await this.rediscover(challenge));
      const context = await this.context(challenge);
      if (moved) await this.store.delete(this.key);
      if (!moved && rejected?.refreshToken !== undefined) {
        const refreshed = await requestTokens(
          { grant_type: 'refresh_token', refresh_token: rejected.refreshToken },
          context,
          'the refresh token',
        ).catch(() => undefined);
        if (refreshed !== undefined) {
          return refreshed.refreshToken === undefined
            ? { ...refreshed, refreshToken: rejected.refreshToken }
            : refreshed;
        }
        await this.store.delete(this.key);
      }
      return this.grant(context, this.scopes ?? challenge.scope ?? this.discovery?.scopesSupported);
    });
  }

  /** New tokens with the scope a 403 `insufficient_scope` names added (once per request). */
  private async stepUp(
    current: McpTokens | undefined,
    challenge: BearerChallenge,
  ): Promise<McpTokens> {
    await this.settled();
    if (this.tokens !== undefined && this.tokens !== current) return this.tokens;
    const wanted = new Set([
      ...(this.scopes ?? current?.scope ?? '').split(' '),
      ...(challenge.scope ?? '').split(' '),
    ]);
    wanted.delete('');
    this.scopes = [...wanted].join(' ');
    return this.oneAtATime(async () => this.grant(await this.context(challenge), this.scopes));
  }

  private async grant(context: SessionContext, scopes: string | undefined): Promise<McpTokens> {
    const auth = this.auth;
    if (auth.type === 'client_credentials') {
      return requestTokens(
        { grant_type: 'client_credentials', scope: scopes },
        context,
        'the client credentials',
      );
    }
    if (auth.type === 'jwt_bearer') {
      const assertion = await this.assertion(auth, context, scopes);
      return requestTokens(
        { grant_type: jwtBearerGrant, assertion, scope: scopes },
        context,
        'the JWT bearer assertion',
      );
    }
    return authorizeWithCode(auth, context.discovery, context, scopes);
  }

  /** The assertion of `jwt_bearer`, asked of the application for this token request. */
  private async assertion(
    auth: McpJwtBearerAuth,
    context: SessionContext,
    scopes: string | undefined,
  ): Promise<string> {
    let value: unknown;
    try {
      value = await auth.assertion({
        issuer: context.server.issuer,
        tokenEndpoint: context.server.tokenEndpoint,
        resource: context.resource,
        ...(scopes === undefined ? {} : { scope: scopes }),
      });
    } catch (error) {
      throw authFailed(this.scope, `auth.assertion() failed: ${describeThrown(error)}`);
    }
    if (typeof value !== 'string' || value === '') {
      throw authFailed(
        this.scope,
        'auth.assertion() returned no assertion (an empty string or not a string)',
      );
    }
    this.scope.secrets.add(value);
    return value;
  }

  /** Waits for the renewal in flight, whatever its outcome (its own request reports that). */
  private async settled(): Promise<void> {
    while (this.renewal !== undefined) await this.renewal.catch(() => undefined);
  }

  /**
   * Starts a renewal; called right after `settled()` with no await between, so that one runs
   * at a time and the others reuse its tokens.
   */
  private oneAtATime(obtain: () => Promise<McpTokens>): Promise<McpTokens> {
    const renewal = (async () => {
      const tokens = await obtain();
      this.keep(tokens, undefined);
      await this.store.set(this.key, tokens);
      return tokens;
    })();
    this.renewal = renewal;
    const clear = (): void => {
      if (this.renewal === renewal) this.renewal = undefined;
    };
    renewal.then(clear, clear);
    return renewal;
  }

  private keep(tokens: McpTokens, skewMs: number | undefined): void {
    this.tokens = tokens;
    this.scope.secrets.add(tokens.accessToken);
    this.scope.secrets.add(tokens.refreshToken);
    if (tokens.expiresAt === undefined) {
      this.refreshAt = Number.POSITIVE_INFINITY;
      return;
    }
    const lifetime = tokens.expiresAt - Date.now();
    this.refreshAt =
      tokens.expiresAt - (skewMs ?? Math.min(maxRefreshSkewMs, Math.max(0, lifetime) / 2));
  }

  /**
   * Discovery again, after the server refused a token: whether the resource now names another
   * authorization server (SEP-2352). Then the client registered with the old one is dropped
   * (credentials are not portable across authorization servers), and so are its tokens.
   */
  private async rediscover(challenge: BearerChallenge): Promise<boolean> {
    const previous = this.discovery;
    if (previous === undefined) return false;
    const current = await discover(
      this.serverUrl,
      challenge.resourceMetadata,
      this.baseFetch,
      this.scope,
    );
    this.discovery = current;
    if (current.server.issuer === previous.server.issuer) return false;
    this.client = undefined;
    return true;
  }

  private async context(challenge: BearerChallenge): Promise<SessionContext> {
    this.discovery ??= await discover(
      this.serverUrl,
      challenge.resourceMetadata,
      this.baseFetch,
      this.scope,
    );
    const discovery = this.discovery;
    if (this.client === undefined) {
      const auth = this.auth;
      this.client =
        auth.type !== 'authorization_code'
          ? {
              clientId: auth.clientId,
              ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
              ...(auth.privateKeyJwt === undefined ? {} : { privateKeyJwt: auth.privateKeyJwt }),
            }
          : await resolveClient(auth, discovery.server, this.baseFetch, this.scope);
    }
    return {
      discovery,
      server: discovery.server,
      client: this.client,
      resource: discovery.resource,
      fetch: this.baseFetch,
      scope: this.scope,
      ...(this.dpop === undefined ? {} : { dpop: this.dpop }),
    };
  }
}

type SessionContext = TokenRequestContext & { readonly discovery: Discovery };

/** The Bearer challenge of a refusal; its body is dropped. */
async function challengeOf(response: Response): Promise<BearerChallenge> {
  await response.body?.cancel().catch(() => undefined);
  return parseBearerChallenge(response.headers.get('www-authenticate'));
}
