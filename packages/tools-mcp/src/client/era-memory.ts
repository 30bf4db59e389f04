import type { McpTransportConfig } from '../config/transport-config.js';
import type { EraMemory, RememberedEra } from '../engines/engine.js';

/** The era each server was found to speak, for the life of the process. */
const eras = new Map<string, RememberedEra>();

/**
 * Where a client keeps the era of its server between connections: a reconnect, or another
 * client of the same server (`McpServers`), skips the `server/discover` probe. Keyed by the
 * server's address (the URL, or the command line and working directory).
 */
export function eraMemoryFor(transport: McpTransportConfig): EraMemory {
  const key =
    transport.type === 'stdio'
      ? JSON.stringify(['stdio', transport.command, transport.args ?? [], transport.cwd ?? ''])
      : JSON.stringify([transport.type, String(transport.url)]);
  return {
    recall: () => eras.get(key),
    remember: (era) => {
      eras.set(key, era);
    },
    forget: () => {
      eras.delete(key);
    },
  };
}
