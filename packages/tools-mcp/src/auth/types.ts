/** A `fetch` as the MCP transports take it. */
export type McpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** A token the application already has: sent as `Authorization: Bearer …` on every request. */
export interface McpBearerAuth {
  readonly type: 'bearer';
  /** The access token. */
  readonly token?: string;
  /** Called before each request when there is no `token` (a token the application refreshes). */
  readonly getToken?: () => string | Promise<string>;
}

/** A private key as a JWK (RFC 7517): `kty` and the key's own members. */
export interface McpJsonWebKey {
  readonly kty: string;
  readonly [member: string]: unknown;
}

/** The key of `privateKeyJwt`: a PKCS#8 PEM or a private JWK, and the JWS algorithm to sign with. */
export interface McpPrivateKeyJwt {
  /** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or a private JWK. */
  readonly privateKey: string | McpJsonWebKey;
  /** `RS256`, `PS256`, `ES256` or `ES384`. */
  readonly algorithm: 'RS256' | 'PS256' | 'ES256' | 'ES384';
  /** The `kid` header, when the authorization server needs it. */
  readonly keyId?: string;
}

/** Machine-to-machine: the client's own credentials buy the token (OAuth `client_credentials`). */
export interface McpClientCredentialsAuth {
  readonly type: 'client_credentials';
  /** The client id registered with the authorization server. */
  readonly clientId: string;
  /** The client secret (sent with HTTP Basic, or in the form when the server wants that). */
  readonly clientSecret?: string;
  /** Or: authenticate with a signed JWT (RFC 7523 `private_key_jwt`). */
  readonly privateKeyJwt?: McpPrivateKeyJwt;
  /** Scopes to ask for, space separated (default: the server's `scopes_supported`). */
  readonly scope?: string;
  /** Where tokens are kept (default: in memory, for the process). */
  readonly tokenStore?: McpTokenStore;
}

/** A person signs in: OAuth authorization code with PKCE (S256). */
export interface McpAuthorizationCodeAuth {
  readonly type: 'authorization_code';
  /**
   * The client id: a registered id, an https URL of a Client ID Metadata Document (used when the
   * server supports them), or none (the client registers itself, RFC 7591).
   */
  readonly clientId?: string;
  /** The client secret of a confidential client. */
  readonly clientSecret?: string;
  /** Where the authorization server sends the browser back (a loopback URL, say). */
  readonly redirectUrl: string | URL;
  /**
   * Opens `authorizationUrl` for the person (prints it, opens a browser) and resolves with the
   * full URL the browser was redirected to.
   */
  readonly onAuthorize: (authorizationUrl: URL) => Promise<string | URL>;
  /** Scopes to ask for, space separated (default: what the server asks for). */
  readonly scope?: string;
  /** The name shown to the person when the client registers itself (default `agcore`). */
  readonly clientName?: string;
  /** Where tokens are kept (default: in memory, for the process). */
  readonly tokenStore?: McpTokenStore;
}

/** How an HTTP MCP server is authorized (`McpHttpTransportConfig.auth`). */
export type McpHttpAuth = McpBearerAuth | McpClientCredentialsAuth | McpAuthorizationCodeAuth;

/** The tokens of one server and client, as a token store keeps them. */
export interface McpTokens {
  readonly accessToken: string;
  /** `Bearer`, as the authorization server said. */
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** When the access token expires, in ms since the epoch. */
  readonly expiresAt?: number;
  /** The scopes granted, space separated. */
  readonly scope?: string;
}

/** Which tokens: the MCP server's URL and the OAuth client id. */
export interface McpTokenKey {
  readonly serverUrl: string;
  readonly clientId: string;
}

/** Keeps tokens between connections (and, for a file store, between runs). */
export interface McpTokenStore {
  /** The tokens kept for this server URL and client id, or `undefined` when there are none. */
  get(key: McpTokenKey): McpTokens | undefined | Promise<McpTokens | undefined>;
  /** Keeps (replaces) the tokens of this server URL and client id. */
  set(key: McpTokenKey, tokens: McpTokens): void | Promise<void>;
  /** Forgets the tokens of this server URL and client id (after a refused refresh, say). */
  delete(key: McpTokenKey): void | Promise<void>;
}
