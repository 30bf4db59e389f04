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

/** A Web Crypto `CryptoKey`, as much of it as the types need (DOM and Node keys fit). */
export interface McpCryptoKey {
  readonly type: string;
  readonly extractable: boolean;
  readonly algorithm: object;
  readonly usages: readonly string[];
}

/** A Web Crypto `CryptoKeyPair` (from `crypto.subtle.generateKey`). */
export interface McpCryptoKeyPair {
  readonly publicKey: McpCryptoKey;
  readonly privateKey: McpCryptoKey;
}

/**
 * DPoP (RFC 9449): `true` for a key pair made for the session (ES256, Web Crypto, the private
 * key not extractable), or the key pair to use. Tokens are then bound to the key: every request
 * carries a fresh proof, and the token is sent as `Authorization: DPoP …`.
 */
export type McpDpopOption =
  | true
  | {
      /** An ES256 (ECDSA P-256) key pair; default: one made for the session. */
      readonly key?: McpCryptoKeyPair;
      /** The proof algorithm: `ES256` (the only one). */
      readonly alg?: 'ES256';
    };

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
  /** DPoP-bound tokens (RFC 9449); default: bearer tokens. */
  readonly dpop?: McpDpopOption;
}

/** What the `assertion` callback of `jwt_bearer` is asked for: the audience and the resource. */
export interface McpAssertionRequest {
  /** The authorization server's issuer: the assertion's `aud`. */
  readonly issuer: string;
  /** Its token endpoint (some servers want it as the audience). */
  readonly tokenEndpoint: string;
  /** The protected resource the token is for (RFC 8707). */
  readonly resource: string;
  /** The scopes asked for, space separated, when any. */
  readonly scope?: string;
}

/**
 * A JWT the application holds buys the token (RFC 7523 §2.1, `grant_type`
 * `urn:ietf:params:oauth:grant-type:jwt-bearer`): a workload identity token, or an ID-JAG of
 * enterprise-managed authorization (see `requestIdJag`).
 */
export interface McpJwtBearerAuth {
  readonly type: 'jwt_bearer';
  /**
   * The assertion, asked for at each token request (never kept beyond the token it bought).
   * A rejected assertion is reported, not retried.
   */
  readonly assertion: (request: McpAssertionRequest) => string | Promise<string>;
  /** The client id at the authorization server (sent as `client_id` without a secret). */
  readonly clientId: string;
  /** The client secret, when the authorization server authenticates the client. */
  readonly clientSecret?: string;
  /** Or: authenticate with a signed JWT (`private_key_jwt`). */
  readonly privateKeyJwt?: McpPrivateKeyJwt;
  /** Scopes to ask for, space separated (default: the server's `scopes_supported`). */
  readonly scope?: string;
  /** Where tokens are kept (default: in memory, for the process). */
  readonly tokenStore?: McpTokenStore;
  /** DPoP-bound tokens (RFC 9449); default: bearer tokens. */
  readonly dpop?: McpDpopOption;
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
  /** DPoP-bound tokens (RFC 9449); default: bearer tokens. */
  readonly dpop?: McpDpopOption;
}

/** The OAuth grants (`auth` types other than `bearer`). */
export type McpOAuthGrantAuth =
  | McpClientCredentialsAuth
  | McpAuthorizationCodeAuth
  | McpJwtBearerAuth;

/** `G` with its `type` also (or only) given as `grant`. */
type NamedByGrant<G> = G extends { readonly type: infer T }
  ? Omit<G, 'type'> & { readonly grant: T; readonly type?: T }
  : never;

/**
 * An OAuth grant named by `grant` instead of `type`, as in `{ grant: 'jwt_bearer', clientId,
 * assertion }`: the same fields and the same behaviour as the `type` form. When both are given
 * they must agree.
 */
export type McpNamedGrantAuth = NamedByGrant<McpOAuthGrantAuth>;

/** How an HTTP MCP server is authorized (`McpHttpTransportConfig.auth`). */
export type McpHttpAuth = McpBearerAuth | McpOAuthGrantAuth | McpNamedGrantAuth;

/** An `auth` as the client uses it: the grant named by `type`. */
export type McpTypedAuth = McpBearerAuth | McpOAuthGrantAuth;

/** The tokens of one server and client, as a token store keeps them. */
export interface McpTokens {
  readonly accessToken: string;
  /** `Bearer`, or `DPoP` for a token bound to the DPoP key (RFC 9449). */
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
