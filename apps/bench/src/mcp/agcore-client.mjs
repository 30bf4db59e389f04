// agcore's MCP client: McpClient.callTool (stdio, on the SDK's Client).
import { McpClient } from '@agcore/tools-mcp';
import { ECHO_MESSAGE, everythingServer } from './server.mjs';

/** agcore's McpClient on server-everything. */
export async function create() {
  const client = new McpClient('everything', { type: 'stdio', ...everythingServer() });
  await client.connect();
  return {
    call: async () => (await client.callTool('echo', { message: ECHO_MESSAGE })).value,
    close: () => client.close(),
  };
}
