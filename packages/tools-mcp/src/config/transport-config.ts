import {
  createRedactor,
  type Redactor,
  redactUrl,
  secretsOfHeaders,
  secretsOfUrl,
} from '@agcore/tools-core';
import { secretsOf } from '../auth/secrets.js';
import { typedAuth } from '../auth/typed-auth.js';
import type { McpHttpAuth } from '../auth/types.js';

/** Starts a local MCP server as a child process and talks to it over stdin/stdout. Node only. */
export interface McpStdioTransportConfig {
  readonly type: 'stdio';
  /** The program to run (looked up on PATH). */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /**
   * Variables added to the SDK's safe default environment (HOME, LOGNAME, PATH, SHELL, TERM,
   * USER). Nothing else of the host's environment reaches the server: pass API keys here.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The working directory of the server (default: the host's). */
  readonly cwd?: string;
}

/**
 * Talks to a remote MCP server over Streamable HTTP. When the server answers the first POST
 * with 400, 404 or 405 (an old server that only speaks HTTP+SSE), the client falls back to the
 * deprecated HTTP+SSE transport unless `fallbackToSse` is false.
 */
export interface McpHttpTransportConfig {
  readonly type: 'streamable-http';
  /** The MCP endpoint, such as `http://127.0.0.1:3001/mcp`. */
  readonly url: string | URL;
  /** Headers sent with every request (tokens, say). Never written to errors or logs. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * How the server is authorized: a bearer token, or OAuth 2.1 (`client_credentials`,
   * `authorization_code`, `jwt_bearer`; DPoP-bound with `dpop`) discovered from the server's 401
   * as the MCP authorization spec says.
   * Without it, a 401 fails with `auth_required`.
   */
  readonly auth?: McpHttpAuth;
  /** Fall back to HTTP+SSE for a server that refuses Streamable HTTP (default true). */
  readonly fallbackToSse?: boolean;
}

/** Talks to a remote MCP server over the deprecated HTTP+SSE transport (the `/sse` endpoint). */
export interface McpSseTransportConfig {
  readonly type: 'sse';
  /** The SSE endpoint, such as `http://127.0.0.1:3001/sse`. */
  readonly url: string | URL;
  /** Headers sent with every request. Never written to errors or logs. */
  readonly headers?: Readonly<Record<string, string>>;
  /** How the server is authorized (see `McpHttpTransportConfig.auth`). */
  readonly auth?: McpHttpAuth;
}

/** How `McpClient` reaches its server. */
export type McpTransportConfig =
  | McpStdioTransportConfig
  | McpHttpTransportConfig
  | McpSseTransportConfig;

/** Describes a transport for messages: the command for stdio, the redacted URL for HTTP. */
export function describeTransport(transport: McpTransportConfig): string {
  if (transport.type === 'stdio') {
    return [transport.command, ...(transport.args ?? [])].join(' ');
  }
  return redactUrl(transport.url);
}

/**
 * What must never appear in an error or a report about this transport: for HTTP, every header
 * value (with and without its `Bearer ` scheme), the URL's credentials and query values, and
 * every token, code and secret its `auth` has seen.
 * A stdio server gets nothing it could echo that the caller did not already see.
 */
export function transportRedactor(transport: McpTransportConfig): Redactor {
  if (transport.type === 'stdio') return createRedactor([]);
  const auth = transport.auth === undefined ? undefined : typedAuth(transport.auth);
  const configured = createRedactor([
    ...secretsOfHeaders(transport.headers, true),
    ...secretsOfUrl(transport.url),
    ...(auth?.type === 'bearer' ? [auth.token] : []),
    ...(auth?.type === 'client_credentials' || auth?.type === 'jwt_bearer'
      ? [auth.clientSecret]
      : []),
    ...(auth?.type === 'authorization_code' ? [auth.clientSecret] : []),
  ]);
  // Tokens come and go: the auth's secrets are read at each use.
  return auth === undefined ? configured : (text) => secretsOf(auth).redact(configured(text));
}
