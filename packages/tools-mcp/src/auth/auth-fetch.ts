import { describeThrown } from '@agcore/tools-core';
import { type AuthScope, authFailed, authRequired } from './errors.js';
import { OAuthSession } from './oauth-session.js';
import { secretsOf } from './secrets.js';
import { typedAuth } from './typed-auth.js';
import type { McpBearerAuth, McpFetch, McpHttpAuth, McpTypedAuth } from './types.js';
import { parseBearerChallenge } from './www-authenticate.js';

/** Where an authenticating fetch sends its requests. */
export interface AuthFetchSettings {
  readonly serverName: string;
  readonly serverUrl: URL;
  /** The fetch below (default: the global one). */
  readonly fetch?: McpFetch;
}

const sessions = new WeakMap<McpTypedAuth, Map<string, OAuthSession>>();

/**
 * The `fetch` an HTTP transport runs on for `auth`: it adds `Authorization: Bearer …`, and for
 * the OAuth grants discovers the authorization server on a 401, gets and refreshes tokens and
 * retries once. Without `auth`, a 401 becomes `auth_required` saying what to configure.
 * Engine independent: any transport that takes a `fetch` can use it.
 */
export function createAuthFetch(
  given: McpHttpAuth | undefined,
  settings: AuthFetchSettings,
): McpFetch {
  const base: McpFetch = settings.fetch ?? ((input, init) => fetch(input, init));
  if (given === undefined) return unauthenticatedFetch(base, settings.serverName);
  const auth = typedAuth(given);
  const scope: AuthScope = { serverName: settings.serverName, secrets: secretsOf(auth) };
  if (auth.type === 'bearer') return bearerFetch(auth, base, scope);
  let byServer = sessions.get(auth);
  if (byServer === undefined) {
    byServer = new Map();
    sessions.set(auth, byServer);
  }
  const key = `${settings.serverUrl.origin}${settings.serverUrl.pathname}`;
  let session = byServer.get(key);
  if (session === undefined) {
    session = new OAuthSession(auth, settings.serverUrl, base, scope);
    byServer.set(key, session);
  }
  return session.fetch;
}

function unauthenticatedFetch(base: McpFetch, serverName: string): McpFetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status !== 401) return response;
    await response.body?.cancel().catch(() => undefined);
    const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
    const oauth =
      challenge.resourceMetadata === undefined ? '' : ' (it names an OAuth authorization server)';
    throw authRequired(
      { serverName, secrets: secretsOf(base) },
      `it answered HTTP 401${oauth}. Set auth on its transport: { type: 'authorization_code', redirectUrl, onAuthorize } for a person, { type: 'client_credentials', clientId, clientSecret } for a service, or { type: 'bearer', token }`,
    );
  };
}

function bearerFetch(auth: McpBearerAuth, base: McpFetch, scope: AuthScope): McpFetch {
  const token = async (): Promise<string> => {
    if (auth.token !== undefined) return auth.token;
    if (auth.getToken === undefined) {
      throw authRequired(scope, "auth { type: 'bearer' } needs token or getToken()");
    }
    let value: unknown;
    try {
      value = await auth.getToken();
    } catch (error) {
      throw authFailed(scope, `auth.getToken() failed: ${describeThrown(error)}`);
    }
    if (typeof value !== 'string' || value === '') {
      throw authFailed(
        scope,
        'auth.getToken() returned no token (an empty string or not a string)',
      );
    }
    return value;
  };
  const send = async (input: string | URL, init: RequestInit | undefined): Promise<Response> => {
    const value = await token();
    scope.secrets.add(value);
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${value}`);
    return base(input, { ...init, headers });
  };
  return async (input, init) => {
    let response = await send(input, init);
    // getToken() may hand out a fresh token: ask once more, never in a loop.
    if (response.status === 401 && auth.token === undefined) {
      await response.body?.cancel().catch(() => undefined);
      response = await send(input, init);
    }
    if (response.status !== 401 && response.status !== 403) return response;
    const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
    if (response.status === 403 && challenge.error !== 'insufficient_scope') return response;
    await response.body?.cancel().catch(() => undefined);
    throw authFailed(
      scope,
      response.status === 401
        ? 'the server refused the bearer token'
        : `the bearer token lacks the scope '${challenge.scope ?? ''}'`,
      challenge,
      'Give auth a valid token (or use an OAuth grant, which renews tokens).',
    );
  };
}
