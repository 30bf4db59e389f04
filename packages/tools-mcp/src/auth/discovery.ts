import { type AuthScope, authFailed } from './errors.js';
import type { McpFetch } from './types.js';

/** What the client needs of an authorization server's metadata (RFC 8414 / OpenID discovery). */
export interface AuthorizationServer {
  readonly issuer: string;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint: string;
  readonly registrationEndpoint?: string;
  readonly codeChallengeMethods: readonly string[];
  readonly tokenEndpointAuthMethods: readonly string[];
  /** RFC 9207: the server puts `iss` in its authorization responses. */
  readonly issInResponse: boolean;
  /** The server accepts an https URL of a Client ID Metadata Document as `client_id`. */
  readonly clientIdMetadataDocuments: boolean;
}

/** Where discovery led: the resource to name in every request, and its authorization server. */
export interface Discovery {
  /** The `resource` indicator (RFC 8707): the protected resource's identifier. */
  readonly resource: string;
  /** The scopes the resource lists (`scopes_supported`), space separated, when it lists any. */
  readonly scopesSupported?: string;
  readonly server: AuthorizationServer;
}

/**
 * Discovery as the MCP authorization spec orders it: the protected resource metadata (RFC 9728)
 * at `resourceMetadata` (from `WWW-Authenticate`) or at the well-known URLs of `serverUrl`, then
 * the first authorization server's metadata (RFC 8414, then OpenID discovery), whose `issuer`
 * must match.
 *
 * @throws {McpToolError} `auth_failed` saying which document is missing or wrong.
 */
export async function discover(
  serverUrl: URL,
  resourceMetadata: string | undefined,
  fetch: McpFetch,
  scope: AuthScope,
): Promise<Discovery> {
  const candidates =
    resourceMetadata === undefined ? wellKnown(serverUrl, 'oauth-protected-resource') : [];
  if (resourceMetadata !== undefined) candidates.push(new URL(resourceMetadata, serverUrl));
  const found = await firstDocument(candidates, fetch);
  if (found === undefined) {
    throw authFailed(
      scope,
      `no protected resource metadata (RFC 9728) at ${candidates.map(String).join(' or ')}`,
      {},
      'The server answered 401 but says nowhere which authorization server to use.',
    );
  }
  const resource = stringField(found.document, 'resource');
  if (resource === undefined || !coversServer(resource, serverUrl)) {
    throw authFailed(
      scope,
      `the protected resource metadata names the resource '${resource}', which is not this server (${serverUrl.origin}${serverUrl.pathname})`,
      {},
      'Refused: a token for that resource must not be sent here.',
    );
  }
  const servers = found.document.authorization_servers;
  const issuer = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : undefined;
  if (issuer === undefined) {
    throw authFailed(scope, `the protected resource metadata lists no authorization_servers`);
  }
  const scopes = found.document.scopes_supported;
  return {
    resource,
    ...(Array.isArray(scopes) && scopes.every((item) => typeof item === 'string')
      ? { scopesSupported: scopes.join(' ') }
      : {}),
    server: await authorizationServer(issuer, fetch, scope),
  };
}

async function authorizationServer(
  issuer: string,
  fetch: McpFetch,
  scope: AuthScope,
): Promise<AuthorizationServer> {
  const issuerUrl = new URL(issuer);
  const path = issuerUrl.pathname.replace(/\/$/, '');
  const candidates =
    path === ''
      ? [
          new URL('/.well-known/oauth-authorization-server', issuerUrl),
          new URL('/.well-known/openid-configuration', issuerUrl),
        ]
      : [
          new URL(`/.well-known/oauth-authorization-server${path}`, issuerUrl),
          new URL(`/.well-known/openid-configuration${path}`, issuerUrl),
          new URL(`${path}/.well-known/openid-configuration`, issuerUrl),
        ];
  const found = await firstDocument(candidates, fetch);
  if (found === undefined) {
    throw authFailed(scope, `no authorization server metadata for '${issuer}'`);
  }
  const document = found.document;
  const said = stringField(document, 'issuer');
  if (said === undefined || said.replace(/\/$/, '') !== issuer.replace(/\/$/, '')) {
    throw authFailed(
      scope,
      `the authorization server metadata at ${found.url} names the issuer '${said}', not '${issuer}'`,
      {},
      'Refused (RFC 8414 §3.3).',
    );
  }
  const tokenEndpoint = stringField(document, 'token_endpoint');
  if (tokenEndpoint === undefined) {
    throw authFailed(scope, `the authorization server '${issuer}' has no token_endpoint`);
  }
  const authorizationEndpoint = stringField(document, 'authorization_endpoint');
  const registrationEndpoint = stringField(document, 'registration_endpoint');
  return {
    issuer: said,
    tokenEndpoint,
    ...(authorizationEndpoint === undefined ? {} : { authorizationEndpoint }),
    ...(registrationEndpoint === undefined ? {} : { registrationEndpoint }),
    codeChallengeMethods: strings(document.code_challenge_methods_supported),
    tokenEndpointAuthMethods: strings(document.token_endpoint_auth_methods_supported),
    issInResponse: document.authorization_response_iss_parameter_supported === true,
    clientIdMetadataDocuments: document.client_id_metadata_document_supported === true,
  };
}

/** RFC 9728 §3: the path-specific URL first, then the one at the root. */
function wellKnown(serverUrl: URL, name: string): URL[] {
  const path = serverUrl.pathname.replace(/\/$/, '');
  const root = new URL(`/.well-known/${name}`, serverUrl);
  return path === '' ? [root] : [new URL(`/.well-known/${name}${path}`, serverUrl), root];
}

/** The resource covers the server: same origin, and the server's path lies under its path. */
function coversServer(resource: string, serverUrl: URL): boolean {
  try {
    const url = new URL(resource);
    const base = url.pathname.replace(/\/$/, '');
    return (
      url.origin === serverUrl.origin &&
      (serverUrl.pathname === base ||
        serverUrl.pathname.startsWith(`${base}/`) ||
        serverUrl.pathname === `${base}/`)
    );
  } catch {
    return false;
  }
}

async function firstDocument(
  urls: readonly URL[],
  fetch: McpFetch,
): Promise<{ readonly url: URL; readonly document: Record<string, unknown> } | undefined> {
  for (const url of urls) {
    let response: Response;
    try {
      response = await fetch(url, { headers: { accept: 'application/json' } });
    } catch {
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const document: unknown = await response.json().catch(() => undefined);
    if (typeof document === 'object' && document !== null && !Array.isArray(document)) {
      return { url, document: document as Record<string, unknown> };
    }
  }
  return undefined;
}

function stringField(document: Record<string, unknown>, key: string): string | undefined {
  const value = document[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}
