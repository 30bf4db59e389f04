import type { McpHttpAuth, McpOAuthGrantAuth, McpTypedAuth } from './types.js';

const grants: ReadonlySet<string> = new Set([
  'client_credentials',
  'authorization_code',
  'jwt_bearer',
]);
const typed = new WeakMap<object, McpTypedAuth>();

/**
 * `auth` with its grant named by `type` (`{ grant: 'jwt_bearer', … }` becomes `{ type:
 * 'jwt_bearer', … }`). The same object in gives the same object out, so the tokens and secrets
 * kept per `auth` object stay shared between the clients given one `auth`.
 * @throws {TypeError} when `grant` names no OAuth grant, or `type` and `grant` disagree
 */
export function typedAuth(auth: McpHttpAuth): McpTypedAuth {
  if (!('grant' in auth) || auth.grant === undefined) return auth as McpTypedAuth;
  const known = typed.get(auth);
  if (known !== undefined) return known;
  const grant: unknown = auth.grant;
  if (typeof grant !== 'string' || !grants.has(grant)) {
    throw new TypeError(
      `auth.grant must be 'client_credentials', 'authorization_code' or 'jwt_bearer', got ${JSON.stringify(grant)}`,
    );
  }
  if (auth.type !== undefined && auth.type !== grant) {
    throw new TypeError(`auth.type '${auth.type}' and auth.grant '${grant}' disagree: give one`);
  }
  const { grant: _grant, ...fields } = auth;
  const result = { ...fields, type: grant } as McpOAuthGrantAuth;
  typed.set(auth, result);
  return result;
}
