// The raw MCP TypeScript SDK Client over its StdioClientTransport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ECHO_MESSAGE, everythingServer } from './server.mjs';

/** The SDK Client on server-everything. */
export async function create() {
  const client = new Client({ name: 'bench-sdk', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ ...everythingServer(), stderr: 'ignore' }));
  return {
    call: async () => {
      const result = await client.callTool({ name: 'echo', arguments: { message: ECHO_MESSAGE } });
      return result.content[0].text;
    },
    close: () => client.close(),
  };
}
