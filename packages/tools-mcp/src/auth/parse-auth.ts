import { McpToolError } from '../mcp-tool-error.js';
import type { McpHttpAuth } from './types.js';

/** How the `mcpServers` reader hands its helpers: expand `${env:…}`, fail naming the field. */
export interface AuthFieldReader {
  readonly server: string;
  readonly expand: (value: string, field: string) => string;
  readonly fail: (message: string) => Error;
}

/**
 * The `auth` of an `mcpServers` entry: `{ type: 'bearer', token }`, `{ type:
 * 'client_credentials', clientId, clientSecret?, scope?, dpop? }` or `{ type: 'authorization_code',
 * clientId?, clientSecret?, redirectUrl, scope?, dpop? }` (`dpop`: `true` or `false`). JSON has no functions: an
 * `authorization_code` entry gets an `onAuthorize` that fails with `auth_required` until the
 * application sets its own on the entry's `transport.auth` (the playground does).
 *
 * @throws the reader's error naming the field for a missing or mistyped field.
 */
export function parseAuth(value: unknown, reader: AuthFieldReader): McpHttpAuth | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw reader.fail('"auth" must be a JSON object');
  }
  const raw = value as Record<string, unknown>;
  const text = (key: string, required: boolean): string | undefined => {
    const field = raw[key];
    if (field === undefined && !required) return undefined;
    if (typeof field !== 'string' || field === '') {
      throw reader.fail(`"auth.${key}" must be a non-empty string`);
    }
    return reader.expand(field, `auth.${key}`);
  };
  const optional = (key: string): Record<string, string> => {
    const found = text(key, false);
    return found === undefined ? {} : { [key]: found };
  };
  const dpop = (): { dpop?: true } => {
    if (raw.dpop === undefined || raw.dpop === false) return {};
    if (raw.dpop !== true) throw reader.fail('"auth.dpop" must be true or false');
    return { dpop: true };
  };
  if (raw.type === 'bearer') return { type: 'bearer', token: text('token', true) as string };
  if (raw.type === 'client_credentials') {
    return {
      type: 'client_credentials',
      clientId: text('clientId', true) as string,
      ...optional('clientSecret'),
      ...optional('scope'),
      ...dpop(),
    };
  }
  if (raw.type === 'authorization_code') {
    const server = reader.server;
    return {
      type: 'authorization_code',
      redirectUrl: text('redirectUrl', true) as string,
      ...optional('clientId'),
      ...optional('clientSecret'),
      ...optional('scope'),
      ...dpop(),
      onAuthorize: () =>
        Promise.reject(
          new McpToolError(
            'auth_required',
            `MCP server '${server}' requires a person to sign in, and the application set no onAuthorize on its transport.auth.`,
            { serverName: server },
          ),
        ),
    };
  }
  throw reader.fail(
    `"auth.type" must be 'bearer', 'client_credentials' or 'authorization_code', got ${JSON.stringify(raw.type)}`,
  );
}
