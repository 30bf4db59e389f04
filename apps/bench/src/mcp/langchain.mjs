// @langchain/mcp-adapters: MultiServerMCPClient, the echo tool's invoke.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ECHO_MESSAGE, everythingServer } from './server.mjs';

/** LangChain's MCP adapter on server-everything. */
export async function create() {
  const client = new MultiServerMCPClient({
    mcpServers: { everything: { transport: 'stdio', ...everythingServer(), stderr: 'ignore' } },
    throwOnLoadError: true,
  });
  const tools = await client.getTools();
  const echo = tools.find((tool) => tool.name === 'echo' || tool.name.endsWith('__echo'));
  if (echo === undefined) throw new Error('@langchain/mcp-adapters: no echo tool');
  return {
    call: async () => {
      const result = await echo.invoke({ message: ECHO_MESSAGE });
      return typeof result === 'string'
        ? result
        : Array.isArray(result)
          ? result[0]?.text
          : String(result);
    },
    close: () => client.close(),
  };
}
