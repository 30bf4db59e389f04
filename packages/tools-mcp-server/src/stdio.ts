import type { ToolRegistry } from '@agcore/tools-registry';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ToolCalls } from './calls/tool-calls.js';
import { LogLevels } from './clients/client-logging.js';
import { createLegacyServer } from './eras/legacy/legacy-era.js';
import { Offerings } from './offerings/served-offerings.js';
import type { ServeToolsOptions } from './types.js';

/** Options of `serveToolsStdio`: those of `serveTools` that apply to one local client. */
export type ServeToolsStdioOptions = Pick<
  ServeToolsOptions,
  'serverInfo' | 'approval' | 'idempotencyStore' | 'secrets' | 'resources' | 'prompts'
>;

/** A server answering on this process's stdin and stdout. */
export interface StdioToolServer {
  /** Closes the transport; calls in flight are aborted. */
  close(): Promise<void>;
}

/**
 * Serves `registry` over stdio (this process is the MCP server child of a client), with the
 * 2025-11-25 initialize handshake on the v1 SDK; every call goes through `registry.invoke`. The
 * process's stdout then belongs to the protocol: log to stderr.
 */
export async function serveToolsStdio(
  registry: ToolRegistry,
  options: ServeToolsStdioOptions = {},
): Promise<StdioToolServer> {
  const calls = new ToolCalls(registry, options);
  const shutdown = new AbortController();
  const server = createLegacyServer(
    {
      calls,
      offerings: new Offerings(registry, options),
      logLevels: new LogLevels(),
      serverInfo: options.serverInfo ?? { name: 'agcore-tools', version: '0.1.0' },
      listChanged: false,
    },
    undefined,
    shutdown.signal,
  );
  await server.connect(new StdioServerTransport());
  return {
    close: async () => {
      shutdown.abort(new Error('the server is closing'));
      await server.close();
    },
  };
}
