// agcore's MCP adapter as a model sees it: the BaseTool from McpClient.tools(), run with a
// ToolContext that carries a signal (so the adapter does its per-call abort plumbing, as under
// the registry). The context is made once: its cost is the registry's, not the adapter's.
import { createToolContext } from '@agcore/tools-core';
import { McpClient } from '@agcore/tools-mcp';
import { ECHO_MESSAGE, everythingServer } from './server.mjs';

/** agcore's MCP tool adapter on server-everything. */
export async function create() {
  const client = new McpClient('everything', { type: 'stdio', ...everythingServer() });
  await client.connect();
  const echo = (await client.tools()).find((tool) => tool.name === 'echo');
  if (echo === undefined) throw new Error('agcore tools-mcp: no echo tool');
  const context = createToolContext();
  return {
    call: async () => echo.execute({ message: ECHO_MESSAGE }, context),
    close: () => client.close(),
  };
}
