import { redactUrl } from '@agcore/tools-core';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createAuthFetch } from '../auth/auth-fetch.js';
import type { McpTransportConfig } from '../config/transport-config.js';
import { McpToolError } from '../mcp-tool-error.js';
import { ObservedStdioTransport } from './stdio-process.js';

/** The transport of one connection, with the kind-specific handles the connection needs. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** Set for stdio: the child process and its exit. */
  readonly stdio: ObservedStdioTransport | undefined;
  /** Set for Streamable HTTP: its session, ended with DELETE on close. */
  readonly http: StreamableHTTPClientTransport | undefined;
}

/** How a transport is made. */
export interface TransportSettings {
  readonly serverName: string;
  readonly maxMessageBytes: number;
  /** HTTP: the fetch to send with (default the global one). */
  readonly fetch: typeof fetch | undefined;
}

type HttpModules = {
  readonly streamable: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  readonly sse: typeof import('@modelcontextprotocol/sdk/client/sse.js');
};

let httpModules: Promise<HttpModules> | undefined;
let loadedHttpModules: HttpModules | undefined;

/**
 * The SDK's HTTP transports, loaded on first use: with their EventSource and fetch plumbing
 * they cost a stdio-only application tens of milliseconds of start-up.
 */
function loadHttpModules(): Promise<HttpModules> {
  httpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
  ]).then(([streamable, sse]) => {
    loadedHttpModules = { streamable, sse };
    return loadedHttpModules;
  });
  return httpModules;
}

/**
 * Makes the transport for `config`; nothing is started.
 *
 * @throws {McpToolError} `mcp_error` when an HTTP URL is not a valid URL.
 */
export async function createTransport(
  config: McpTransportConfig,
  settings: TransportSettings,
): Promise<OpenedTransport> {
  if (config.type === 'stdio') {
    const stdio = new ObservedStdioTransport(config, settings.maxMessageBytes);
    return { transport: stdio, stdio, http: undefined };
  }
  const url = toUrl(config.url, settings.serverName);
  const requestInit = config.headers === undefined ? undefined : { headers: { ...config.headers } };
  // OAuth (or the 401 check without it) over the fetch the connection handed down (which
  // watches for cut response streams).
  const fetch = createAuthFetch(config.auth, {
    serverName: settings.serverName,
    serverUrl: url,
    ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
  });
  const options = requestInit === undefined ? { fetch } : { requestInit, fetch };
  const modules = await loadHttpModules();
  if (config.type === 'sse') {
    return {
      transport: new modules.sse.SSEClientTransport(url, options),
      stdio: undefined,
      http: undefined,
    };
  }
  const http = new modules.streamable.StreamableHTTPClientTransport(url, options);
  return { transport: http, stdio: undefined, http };
}

/**
 * The HTTP status of a failed Streamable HTTP request (the SDK's `StreamableHTTPError`), or
 * `undefined` for any other error. Never throws.
 */
export function httpStatusOf(error: unknown): number | undefined {
  const modules = loadedHttpModules;
  if (modules === undefined || !(error instanceof modules.streamable.StreamableHTTPError)) {
    return undefined;
  }
  return typeof error.code === 'number' ? error.code : undefined;
}

function toUrl(url: string | URL, serverName: string): URL {
  try {
    return new URL(String(url));
  } catch (error) {
    // No cause: Node's error carries the whole URL, tokens included.
    throw new McpToolError(
      'mcp_error',
      `MCP server '${serverName}': '${redactUrl(url)}' is not a valid URL (${
        error instanceof Error ? error.message : String(error)
      }).`,
      { serverName },
    );
  }
}
