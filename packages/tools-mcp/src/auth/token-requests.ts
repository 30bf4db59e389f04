import type { AuthorizationServer } from './discovery.js';
import type { DpopProver } from './dpop.js';
import { type AuthScope, authFailed } from './errors.js';
import { signClientAssertion } from './jwt.js';
import type { McpFetch, McpPrivateKeyJwt, McpTokens } from './types.js';

/** The OAuth client the requests are made as. */
export interface OAuthClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly privateKeyJwt?: McpPrivateKeyJwt;
}

/** What a token request needs besides its grant's own parameters. */
export interface TokenRequestContext {
  readonly server: AuthorizationServer;
  readonly client: OAuthClient;
  readonly resource: string;
  readonly fetch: McpFetch;
  readonly scope: AuthScope;
  /** DPoP proofs for the token requests, when the auth asks for DPoP-bound tokens. */
  readonly dpop?: DpopProver;
}

/**
 * POSTs a grant to the token endpoint with the client's authentication and the `resource`
 * indicator (RFC 8707), and reads the tokens.
 *
 * @throws {McpToolError} `auth_failed` with the server's `error` and `error_description`.
 */
export async function requestTokens(
  grant: Readonly<Record<string, string | undefined>>,
  context: TokenRequestContext,
  what: string,
): Promise<McpTokens> {
  const { scope } = context;
  const body = await postGrant(grant, context, what);
  const accessToken = body.json.access_token;
  const tokenType = body.json.token_type;
  if (!body.ok || typeof accessToken !== 'string' || accessToken === '') {
    throw authFailed(
      scope,
      `the authorization server refused ${what}`,
      refusalOf(body.json),
      statusNote(body.status),
    );
  }
  scope.secrets.add(accessToken);
  const type = typeof tokenType === 'string' ? tokenType.toLowerCase() : '';
  if (type !== 'bearer' && !(type === 'dpop' && context.dpop !== undefined)) {
    throw authFailed(
      scope,
      `the authorization server issued a '${String(tokenType)}' token for ${what}; only Bearer tokens${context.dpop === undefined ? ' (and DPoP tokens, with auth.dpop)' : ' and DPoP tokens'} are supported`,
    );
  }
  const refreshToken =
    typeof body.json.refresh_token === 'string' ? body.json.refresh_token : undefined;
  scope.secrets.add(refreshToken);
  const expiresIn = Number(body.json.expires_in);
  return {
    accessToken,
    tokenType: type === 'dpop' ? 'DPoP' : 'Bearer',
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(Number.isFinite(expiresIn) && expiresIn > 0
      ? { expiresAt: Date.now() + expiresIn * 1000 }
      : {}),
    ...(typeof body.json.scope === 'string' ? { scope: body.json.scope } : {}),
  };
}

/**
 * The grant's form with the client's authentication, and a DPoP proof when the session has a
 * prover: a `use_dpop_nonce` refusal (RFC 9449 §8) is retried once with the server's nonce.
 */
async function postGrant(
  grant: Readonly<Record<string, string | undefined>>,
  context: TokenRequestContext,
  what: string,
): Promise<PostedForm> {
  const { server, dpop } = context;
  for (let attempt = 0; ; attempt += 1) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(grant)) if (value !== undefined) form.set(key, value);
    form.set('resource', context.resource);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    await authenticateClient(form, headers, context);
    if (dpop !== undefined) headers.dpop = await proofFor(dpop, server.tokenEndpoint, context);
    const body = await postForm(server.tokenEndpoint, form, headers, context, what);
    const renewed = dpop !== undefined && body.nonce !== undefined;
    if (renewed) dpop.remember(server.tokenEndpoint, body.nonce);
    if (body.ok || body.json.error !== 'use_dpop_nonce' || !renewed || attempt > 0) return body;
  }
}

async function proofFor(
  dpop: DpopProver,
  url: string,
  context: TokenRequestContext,
): Promise<string> {
  try {
    return await dpop.proof('POST', url);
  } catch (error) {
    throw authFailed(
      context.scope,
      `could not sign a DPoP proof (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/**
 * Client authentication: `private_key_jwt`, a secret with HTTP Basic (or in the form when
 * the server lists only `client_secret_post`), or the public client's `client_id`.
 */
async function authenticateClient(
  form: URLSearchParams,
  headers: Record<string, string>,
  context: TokenRequestContext,
): Promise<void> {
  const { client, server, scope } = context;
  if (client.privateKeyJwt !== undefined) {
    let assertion: string;
    try {
      assertion = await signClientAssertion(client.privateKeyJwt, client.clientId, server.issuer);
    } catch (error) {
      throw authFailed(
        scope,
        `could not sign the client assertion with privateKeyJwt (${error instanceof Error ? error.message : String(error)})`,
        {},
        'Check privateKey (PKCS#8 PEM or JWK) and algorithm.',
      );
    }
    scope.secrets.add(assertion);
    form.set('client_id', client.clientId);
    form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    form.set('client_assertion', assertion);
    return;
  }
  if (client.clientSecret !== undefined) {
    const methods = server.tokenEndpointAuthMethods;
    if (
      methods.length > 0 &&
      !methods.includes('client_secret_basic') &&
      methods.includes('client_secret_post')
    ) {
      form.set('client_id', client.clientId);
      form.set('client_secret', client.clientSecret);
      return;
    }
    const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');
    const basic = btoa(`${encode(client.clientId)}:${encode(client.clientSecret)}`);
    scope.secrets.add(basic);
    headers.authorization = `Basic ${basic}`;
    return;
  }
  form.set('client_id', client.clientId);
}

/** What an OAuth endpoint answered. */
export interface PostedForm {
  readonly ok: boolean;
  readonly status: number;
  readonly json: Record<string, unknown>;
  /** The `DPoP-Nonce` header (RFC 9449 §8), when there is one. */
  readonly nonce?: string;
}

/** A form POST to an OAuth endpoint; the JSON body (or `{}`), its status and whether it is 2xx. */
export async function postForm(
  url: string,
  body: URLSearchParams | string,
  headers: Record<string, string>,
  context: { readonly fetch: McpFetch; readonly scope: AuthScope },
  what: string,
): Promise<PostedForm> {
  let response: Response;
  try {
    response = await context.fetch(url, { method: 'POST', headers, body, redirect: 'error' });
  } catch (error) {
    throw authFailed(
      context.scope,
      `could not reach the authorization server for ${what} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const json: unknown = await response.json().catch(() => undefined);
  const nonce = response.headers.get('dpop-nonce');
  return {
    ok: response.ok,
    status: response.status,
    ...(nonce === null || nonce === '' ? {} : { nonce }),
    json:
      typeof json === 'object' && json !== null && !Array.isArray(json)
        ? (json as Record<string, unknown>)
        : {},
  };
}

/** The `error` and `error_description` of an OAuth error body. */
export function refusalOf(json: Record<string, unknown>): {
  error?: string;
  errorDescription?: string;
} {
  return {
    ...(typeof json.error === 'string' ? { error: json.error } : {}),
    ...(typeof json.error_description === 'string'
      ? { errorDescription: json.error_description }
      : {}),
  };
}

function statusNote(status: number): string {
  return `(HTTP ${status})`;
}
