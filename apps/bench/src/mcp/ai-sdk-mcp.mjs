// @ai-sdk/mcp: createMCPClient over its stdio transport, the echo tool's execute.
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { ECHO_MESSAGE, everythingServer } from './server.mjs';

/** The AI SDK's MCP client on server-everything. */
export async function create() {
  const client = await createMCPClient({
    transport: new StdioMCPTransport({ ...everythingServer(), stderr: 'ignore' }),
  });
  const tools = await client.tools();
  const echo = tools.echo;
  if (echo === undefined) throw new Error('@ai-sdk/mcp: no echo tool');
  let callNumber = 0;
  return {
    call: async () => {
      const result = await echo.execute(
        { message: ECHO_MESSAGE },
        { toolCallId: `call_${callNumber++}`, messages: [] },
      );
      return result.content[0].text;
    },
    close: () => client.close(),
  };
}
