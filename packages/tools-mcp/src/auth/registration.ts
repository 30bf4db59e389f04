import type { AuthorizationServer } from './discovery.js';
import { type AuthScope, authFailed, authRequired } from './errors.js';
import { type OAuthClient, postForm, refusalOf } from './token-requests.js';
import type { McpAuthorizationCodeAuth, McpFetch } from './types.js';

/**
 * The client an authorization-code flow runs as: the configured `clientId` (an https URL is
 * used as a Client ID Metadata Document when the server supports them), or one the client
 * registers with the server (RFC 7591) when none is configured.
 *
 * @throws {McpToolError} `auth_required` when no client id is configured and the server has
 *   no registration endpoint; `auth_failed` when the registration is refused.
 */
export async function resolveClient(
  auth: McpAuthorizationCodeAuth,
  server: AuthorizationServer,
  fetch: McpFetch,
  scope: AuthScope,
): Promise<OAuthClient> {
  const configured = auth.clientId;
  if (configured !== undefined) {
    const isDocument = configured.startsWith('https://');
    if (
      !isDocument ||
      server.clientIdMetadataDocuments ||
      server.registrationEndpoint === undefined
    ) {
      return {
        clientId: configured,
        ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
      };
    }
  }
  if (server.registrationEndpoint === undefined) {
    throw authRequired(
      scope,
      `the authorization server '${server.issuer}' offers no dynamic client registration; register a client there and set auth.clientId (and clientSecret for a confidential client)`,
    );
  }
  const redirect = new URL(String(auth.redirectUrl));
  const metadata = {
    client_name: auth.clientName ?? 'agcore',
    // SEP-837: a loopback or custom-scheme redirect is a native application.
    application_type:
      redirect.protocol !== 'https:' ||
      ['127.0.0.1', 'localhost', '[::1]'].includes(redirect.hostname)
        ? 'native'
        : 'web',
    redirect_uris: [String(auth.redirectUrl)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(auth.scope === undefined ? {} : { scope: auth.scope }),
  };
  const body = await postForm(
    server.registrationEndpoint,
    JSON.stringify(metadata),
    { 'content-type': 'application/json', accept: 'application/json' },
    { fetch, scope },
    'client registration',
  );
  const clientId = body.json.client_id;
  if (!body.ok || typeof clientId !== 'string' || clientId === '') {
    throw authFailed(
      scope,
      'the authorization server refused to register this client (RFC 7591)',
      refusalOf(body.json),
      `(HTTP ${body.status}) Set auth.clientId to a client registered there.`,
    );
  }
  const secret = typeof body.json.client_secret === 'string' ? body.json.client_secret : undefined;
  scope.secrets.add(secret);
  if (typeof body.json.registration_access_token === 'string')
    scope.secrets.add(body.json.registration_access_token);
  return { clientId, ...(secret === undefined ? {} : { clientSecret: secret }) };
}
