import type { Discovery } from './discovery.js';
import { type AuthScope, authFailed } from './errors.js';
import { base64Url, randomToken } from './jwt.js';
import { requestTokens, type TokenRequestContext } from './token-requests.js';
import type { McpAuthorizationCodeAuth, McpTokens } from './types.js';

/**
 * One authorization-code flow with PKCE (S256): builds the authorization URL (with `state` and
 * the `resource` indicator), hands it to `onAuthorize`, checks the callback (redirect, `state`,
 * `iss` per RFC 9207, `error`) and exchanges the code.
 *
 * @throws {McpToolError} `auth_failed` saying why: no S256, a bad redirect, a `state` or `iss`
 *   mismatch, the server's `error`, a refused exchange or a failed `onAuthorize`.
 */
export async function authorizeWithCode(
  auth: McpAuthorizationCodeAuth,
  discovery: Discovery,
  context: TokenRequestContext,
  scopes: string | undefined,
): Promise<McpTokens> {
  const { server } = discovery;
  const scope = context.scope;
  if (!server.codeChallengeMethods.includes('S256')) {
    throw authFailed(
      scope,
      `the authorization server '${server.issuer}' does not advertise PKCE with S256 (code_challenge_methods_supported: ${JSON.stringify(server.codeChallengeMethods)})`,
      {},
      'Refused: the MCP authorization spec forbids the authorization code flow without PKCE.',
    );
  }
  if (server.authorizationEndpoint === undefined) {
    throw authFailed(
      scope,
      `the authorization server '${server.issuer}' has no authorization_endpoint`,
    );
  }
  const verifier = randomToken(32);
  const state = randomToken(16);
  scope.secrets.add(verifier);
  const challenge = base64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const redirectUrl = String(auth.redirectUrl);
  const url = new URL(server.authorizationEndpoint);
  const parameters: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: context.client.clientId,
    redirect_uri: redirectUrl,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope: scopes,
    resource: discovery.resource,
  };
  for (const [key, value] of Object.entries(parameters))
    if (value !== undefined) url.searchParams.set(key, value);
  let callback: URL;
  try {
    callback = new URL(String(await auth.onAuthorize(url)));
  } catch (error) {
    throw authFailed(
      scope,
      `onAuthorize failed or returned no URL (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const code = readCallback(
    callback,
    redirectUrl,
    state,
    server.issuer,
    server.issInResponse,
    scope,
  );
  scope.secrets.add(code);
  return requestTokens(
    { grant_type: 'authorization_code', code, redirect_uri: redirectUrl, code_verifier: verifier },
    context,
    'the authorization code',
  );
}

/** The `code` of a callback URL, once it passed every check. */
function readCallback(
  callback: URL,
  redirectUrl: string,
  state: string,
  issuer: string,
  issRequired: boolean,
  scope: AuthScope,
): string {
  const expected = new URL(redirectUrl);
  if (callback.origin !== expected.origin || callback.pathname !== expected.pathname) {
    throw authFailed(
      scope,
      `the browser came back to ${callback.origin}${callback.pathname}, not to the redirectUrl ${expected.origin}${expected.pathname}`,
      {},
      'Refused: a bad redirect.',
    );
  }
  const parameters = callback.searchParams;
  if (parameters.get('state') !== state) {
    throw authFailed(
      scope,
      'the authorization response carries another state than the one sent',
      {},
      'Refused: it may be a forged or replayed redirect (CSRF); start the sign-in again.',
    );
  }
  const iss = parameters.get('iss');
  if ((iss !== null || issRequired) && iss !== issuer) {
    throw authFailed(
      scope,
      `the authorization response comes from the issuer '${iss}', not '${issuer}'`,
      {},
      'Refused (RFC 9207): a mix-up attack is possible.',
    );
  }
  const error = parameters.get('error');
  if (error !== null) {
    const description = parameters.get('error_description');
    throw authFailed(scope, 'the authorization server refused the authorization', {
      error,
      ...(description === null ? {} : { errorDescription: description }),
    });
  }
  const code = parameters.get('code');
  if (code === null || code === '') {
    throw authFailed(scope, 'the authorization response carries no code');
  }
  return code;
}
