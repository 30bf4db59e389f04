// One server process of the serveTools bench (src/serve.bench.ts). Args: kind (`agcore`: serveTools
// over a ToolRegistry; `sdk`: the MCP SDK's own Server, stateless, a fresh server and transport
// per request as the SDK's stateless example does; `sdk-shared`: the same with one JSON Schema
// validator given to every per-request server, which the example does not do and which spares the
// Ajv instance the v1 Server otherwise builds per request), port, sleepMs (how long the tool sleeps),
// and for `agcore` optionally a library root: serveTools and the registry of that checkout's
// build (`bench:compare`), instead of this package's own source.
// Both serve one tool, `echo`, returning its text (the SDK's with no argument checking at all:
// its best case). Prints "ready" when listening.
import { createServer } from 'node:http';
import { importLibrary } from '@agcore/bench-method';
import * as core from '@agcore/tools-core';
import * as registryPackage from '@agcore/tools-registry';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import * as self from '../index.js';

const [kind = 'agcore', portText = '0', sleepText = '0', root] = process.argv.slice(2);
const sleepMs = Number(sleepText);
const pause = () =>
  sleepMs > 0 ? new Promise((resolve) => setTimeout(resolve, sleepMs)) : Promise.resolve();

/** The packages the `agcore` server is made of: of `root`'s build, or this package's own. */
async function packagesOf(checkout: string | undefined) {
  if (checkout === undefined) return { core, registryPackage, self };
  const load = async <T>(name: string): Promise<T> => {
    const library = await importLibrary<T>(checkout, name);
    if (library === undefined) throw new Error(`${checkout} has no ${name}`);
    return library;
  };
  return {
    core: await load<typeof core>('@agcore/tools-core'),
    registryPackage: await load<typeof registryPackage>('@agcore/tools-registry'),
    self: await load<typeof self>('@agcore/tools-mcp-server'),
  };
}

if (kind === 'agcore') {
  const packages = await packagesOf(root);
  const registry = new packages.registryPackage.ToolRegistry({ timeoutMs: 30_000 });
  registry.register(
    packages.core.defineTool({
      name: 'echo',
      description: 'Echoes its text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: async ({ text }) => {
        await pause();
        return text;
      },
    }),
  );
  await packages.self.serveTools(registry, { allowedHosts: ['127.0.0.1', 'localhost'] }).listen({
    port: Number(portText),
  });
} else {
  const shared = kind === 'sdk-shared' ? { jsonSchemaValidator: new AjvJsonSchemaValidator() } : {};
  const server = createServer(async (request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200).end('ok');
      return;
    }
    const mcp = new Server(
      { name: 'sdk-bench', version: '1.0.0' },
      { capabilities: { tools: {} }, ...shared },
    );
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: 'echo',
          description: 'Echoes its text',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, async (call) => {
      await pause();
      return { content: [{ type: 'text', text: String(call.params.arguments?.text) }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(Number(portText), '127.0.0.1', resolve));
}
process.stdout.write('ready\n');
