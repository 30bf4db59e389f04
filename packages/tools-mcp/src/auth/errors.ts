import { McpToolError } from '../mcp-tool-error.js';
import type { AuthSecrets } from './secrets.js';

/** Who the errors of one authorization are about, and what to take out of them. */
export interface AuthScope {
  readonly serverName: string;
  readonly secrets: AuthSecrets;
}

/** `auth_required`: the server wants credentials; `message` says what to configure. */
export function authRequired(scope: AuthScope, message: string): McpToolError {
  return new McpToolError(
    'auth_required',
    `MCP server '${scope.serverName}' requires authorization: ${scope.secrets.redact(message)}.`,
    { serverName: scope.serverName },
  );
}

/** What an OAuth endpoint or the resource server said, when it said it. */
export interface OAuthRefusal {
  readonly error?: string;
  readonly errorDescription?: string;
}

/**
 * `auth_failed`: `what` failed; the authorization server's `error` and `error_description`
 * follow, with every known secret taken out. No cause: a fetch error can carry the URL.
 */
export function authFailed(
  scope: AuthScope,
  what: string,
  refusal: OAuthRefusal = {},
  detail?: string,
): McpToolError {
  const said =
    refusal.error === undefined
      ? ''
      : ` (${refusal.error}${refusal.errorDescription === undefined ? '' : `: ${refusal.errorDescription}`})`;
  const tail = detail === undefined ? '' : ` ${detail}`;
  return new McpToolError(
    'auth_failed',
    scope.secrets.redact(`MCP server '${scope.serverName}': ${what}${said}.${tail}`),
    { serverName: scope.serverName },
  );
}
