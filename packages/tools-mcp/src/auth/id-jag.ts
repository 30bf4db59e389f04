import type { McpAssertionRequest, McpFetch } from './types.js';

/** RFC 8693 token exchange. */
const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The Identity Assertion JWT Authorization Grant (ID-JAG) token type. */
const idJagType = 'urn:ietf:params:oauth:token-type:id-jag';

/** Options of `idJagAssertion`: where the enterprise IdP is and what the person signed in with. */
export interface McpIdJagOptions {
  /** The IdP's token endpoint (where the token exchange goes). */
  readonly tokenEndpoint: string | URL;
  /** The person's token at the IdP (an ID token), or a function that returns a current one. */
  readonly subjectToken: string | (() => string | Promise<string>);
  /** Its type (default `urn:ietf:params:oauth:token-type:id_token`). */
  readonly subjectTokenType?: string;
  /** This client's id at the IdP. */
  readonly clientId?: string;
  /** This client's secret at the IdP (sent with HTTP Basic). */
  readonly clientSecret?: string;
  /** The `fetch` to reach the IdP with (default: the global one). */
  readonly fetch?: McpFetch;
}

/**
 * The `assertion` of a `jwt_bearer` auth for enterprise-managed authorization (SEP-990): at each
 * token request, exchanges the person's IdP token at the IdP (RFC 8693, `requested_token_type`
 * ID-JAG, `audience` the MCP authorization server's issuer, `resource` the MCP server) and
 * returns the ID-JAG, which the jwt-bearer grant then presents.
 *
 * @returns a function that rejects with an `Error` naming the IdP's `error` when it refuses
 *   (the client reports it as `auth_failed`).
 */
export function idJagAssertion(
  options: McpIdJagOptions,
): (request: McpAssertionRequest) => Promise<string> {
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  return async (request) => {
    const subjectToken =
      typeof options.subjectToken === 'string'
        ? options.subjectToken
        : await options.subjectToken();
    const form = new URLSearchParams({
      grant_type: tokenExchangeGrant,
      requested_token_type: idJagType,
      subject_token: subjectToken,
      subject_token_type: options.subjectTokenType ?? 'urn:ietf:params:oauth:token-type:id_token',
      audience: request.issuer,
      resource: request.resource,
    });
    if (request.scope !== undefined) form.set('scope', request.scope);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (options.clientSecret !== undefined && options.clientId !== undefined) {
      const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');
      headers.authorization = `Basic ${btoa(`${encode(options.clientId)}:${encode(options.clientSecret)}`)}`;
    } else if (options.clientId !== undefined) {
      form.set('client_id', options.clientId);
    }
    const response = await send(String(options.tokenEndpoint), {
      method: 'POST',
      headers,
      body: form,
      redirect: 'error',
    });
    const json: unknown = await response.json().catch(() => undefined);
    const body = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
    const token = body.access_token;
    if (!response.ok || typeof token !== 'string' || token === '') {
      const error = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new Error(`the IdP refused the token exchange for an ID-JAG (${error})`);
    }
    if (body.issued_token_type !== undefined && body.issued_token_type !== idJagType) {
      throw new Error(`the IdP issued a '${String(body.issued_token_type)}', not an ID-JAG`);
    }
    return token;
  };
}
