import type { McpTransportConfig } from '../config/transport-config.js';
import { transportRedactor } from '../config/transport-config.js';
import type { ConnectionSettings } from '../engines/engine.js';
import { unreachablePolicy } from '../engines/reachability.js';
import { ToolSchemas } from '../schemas/tool-schemas.js';
import type { McpClientOptions } from '../types.js';
import { eraMemoryFor } from './era-memory.js';

const defaultClientInfo = { name: 'agcore', version: '0.1.0' };

/** How the connections of a client are made and run, from its options. */
export function connectionSettings(
  serverName: string,
  transport: McpTransportConfig,
  options: McpClientOptions,
  timeoutMs: () => number,
): ConnectionSettings {
  const protocol = options.protocol ?? 'legacy';
  if (protocol !== 'legacy' && protocol !== 'auto' && protocol !== '2026-07-28') {
    throw new TypeError(
      `McpClient: protocol must be 'legacy', 'auto' or '2026-07-28', got ${JSON.stringify(protocol)}.`,
    );
  }
  return {
    serverName,
    transport,
    redact: transportRedactor(transport),
    clientInfo: options.clientInfo ?? defaultClientInfo,
    onElicitation: options.onElicitation,
    connectTimeoutMs: options.connectTimeoutMs ?? timeoutMs(),
    pingTimeoutMs: timeoutMs,
    unreachableAfter: unreachablePolicy(options.unreachableAfter),
    closeGraceMs: options.closeGraceMs ?? 1000,
    stderrLimitBytes: options.stderrLimitBytes ?? 64 * 1024,
    maxMessageBytes: options.maxMessageBytes ?? 10 * 1024 * 1024,
    onStderr: options.onStderr,
    schemas: new ToolSchemas(),
    protocol,
    eraMemory: protocol === 'legacy' ? undefined : eraMemoryFor(transport),
    fetch: undefined,
  };
}
