import { McpToolError } from '../mcp-tool-error.js';
import type { ConnectionEvents, ConnectionSettings, EngineConnection } from './engine.js';
import { errorCodeOf } from './error-mapping.js';
import { openConnection } from './legacy/connection.js';

type ModernModule = typeof import('./modern/connection.js');

let modern: Promise<ModernModule> | undefined;

/**
 * Opens a connection on the engine `settings.protocol` names: the v1 SDK for `'legacy'`
 * (nothing else is loaded), the v2 SDK for `'auto'` and `'2026-07-28'`, imported on first use.
 *
 * @throws {McpToolError} as `McpClient.connect()` documents; `mcp_error` naming the install
 *   command when the v2 SDK is not installed.
 */
export async function openEngine(
  settings: ConnectionSettings,
  events: ConnectionEvents,
): Promise<EngineConnection> {
  if (settings.protocol === 'legacy') return openConnection(settings, events);
  const module = await loadModern(settings.serverName, settings.protocol);
  return module.ModernConnection.open(settings, events);
}

async function loadModern(serverName: string, protocol: string): Promise<ModernModule> {
  modern ??= import('./modern/connection.js');
  try {
    return await modern;
  } catch (error) {
    modern = undefined;
    const missing =
      errorCodeOf(error) === 'ERR_MODULE_NOT_FOUND' &&
      /@modelcontextprotocol\/(client|core)/.test(error instanceof Error ? error.message : '');
    throw new McpToolError(
      'mcp_error',
      missing
        ? `MCP server '${serverName}': protocol: '${protocol}' runs on the v2 MCP SDK, which is not installed. Install it with 'npm install @modelcontextprotocol/client@^2.4.0' (an optional peer dependency of @agcore/tools-mcp), or use protocol: 'legacy'.`
        : `MCP server '${serverName}': the v2 MCP SDK (@modelcontextprotocol/client) could not be loaded for protocol: '${protocol}': ${error instanceof Error ? error.message : String(error)}`,
      { serverName, cause: error },
    );
  }
}
