import { describeTransport, type McpTransportConfig } from '../../config/transport-config.js';
import { McpToolError } from '../../mcp-tool-error.js';

/**
 * The JSON-RPC error codes by which a 2026-07-28 server refuses a 2025-era request (the
 * 2026-07-28 revision, "Protocol errors"): -32020 header mismatch, -32021 missing required
 * client capability, -32022 unsupported protocol version (with `data.supported`).
 */
const modernRefusalCodes: ReadonlyMap<number, string> = new Map([
  [-32020, 'header mismatch'],
  [-32021, 'missing required client capability'],
  [-32022, 'unsupported protocol version'],
]);

/** A modern server's refusal of the 2025 handshake, read from the body of its HTTP 400. */
export interface ModernRefusal {
  readonly code: number;
  /** The revisions the server names in `error.data.supported` (may be empty). */
  readonly supported: readonly string[];
}

/**
 * Reads a modern server's refusal from a failed POST's error: the v1 SDK's
 * `StreamableHTTPError` carries the response body after "Error POSTing to endpoint: "
 * (checked against 1.32.2; the modern-server tests fail if that changes). `undefined` when the
 * body is not such a JSON-RPC error. Never throws.
 */
export function modernRefusalOf(error: unknown): ModernRefusal | undefined {
  if (!(error instanceof Error)) return undefined;
  const start = error.message.indexOf('{');
  if (start < 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(error.message.slice(start));
  } catch {
    return undefined;
  }
  const rpcError = isObject(body) ? body.error : undefined;
  if (!isObject(rpcError) || typeof rpcError.code !== 'number') return undefined;
  if (!modernRefusalCodes.has(rpcError.code)) return undefined;
  const data = rpcError.data;
  const listed = isObject(data) && Array.isArray(data.supported) ? data.supported : [];
  const supported = listed.filter(
    (version): version is string => typeof version === 'string' && /^[\w.-]{1,32}$/.test(version),
  );
  return { code: rpcError.code, supported };
}

/** The error for a server that refused the legacy handshake as a 2026-07-28 server does. */
export function modernServerError(
  serverName: string,
  transport: McpTransportConfig,
  refusal: ModernRefusal,
  cause: unknown,
): McpToolError {
  const versions =
    refusal.supported.length === 0 ? 'a newer revision' : refusal.supported.join(', ');
  return new McpToolError(
    'mcp_error',
    `MCP server '${serverName}' (${describeTransport(transport)}) speaks only protocol ${versions}: it refused the 2025-11-25 handshake of the legacy engine (JSON-RPC error ${refusal.code}, ${modernRefusalCodes.get(refusal.code)}). Set protocol: 'auto' (or '2026-07-28') on this client or its mcpServers entry to reach it.`,
    { serverName, cause },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
