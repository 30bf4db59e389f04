import { backoffDelay, delay } from '@agcore/tools-core';
import { McpToolError } from '../mcp-tool-error.js';
import type { McpAutoReconnectOptions } from '../types.js';

/**
 * Tries `open` up to `maxAttempts` times (default 3), waiting before each attempt as
 * tools-core's `backoffDelay` says (from `initialDelayMs`, 500 ms by default, doubling up to
 * `maxDelayMs`, 30 s, with jitter). Stops early, without another attempt, once `cancelled()`.
 *
 * @throws {McpToolError} `mcp_error` naming the server and the last attempt's error when every
 *   attempt failed or the loop was cancelled.
 */
export async function reconnectWithBackoff<T>(
  serverName: string,
  settings: McpAutoReconnectOptions,
  open: () => Promise<T>,
  cancelled: () => boolean,
): Promise<T> {
  const maxAttempts = settings.maxAttempts ?? 3;
  const backoff = {
    initialDelayMs: settings.initialDelayMs ?? 500,
    maxDelayMs: settings.maxDelayMs ?? 30_000,
  };
  let last: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    await delay(backoffDelay(attempt, backoff));
    if (cancelled()) break;
    try {
      return await open();
    } catch (error) {
      last = error;
    }
  }
  const reason = last instanceof Error ? ` Last error: ${last.message}` : '';
  throw new McpToolError(
    'mcp_error',
    `MCP server '${serverName}' died and ${maxAttempts} reconnection attempt(s) failed.${reason}`,
    { serverName, ...(last === undefined ? {} : { cause: last }) },
  );
}
