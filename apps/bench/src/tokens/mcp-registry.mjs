// The 200-tool registry of the tool search bench: the real listings of three MCP servers
// (server-everything, server-filesystem, server-memory, started over stdio as McpTools), and
// generated tools modelled on them (the filesystem's and the memory server's shapes renamed
// for other services) up to 200. server-filesystem and server-memory are dependencies of
// @agcore/tools-mcp, not of this app: they are resolved from there (the lockfile is shared).
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTool } from '@agcore/tools-core';
import { McpClient } from '@agcore/tools-mcp';
import { ToolRegistry } from '@agcore/tools-registry';
import { everythingServer } from '../mcp/server.mjs';

const toolsMcp = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../packages/tools-mcp/package.json',
);
const fromToolsMcp = createRequire(toolsMcp);

function serverScript(name) {
  const root = dirname(fromToolsMcp.resolve(`@modelcontextprotocol/${name}/package.json`));
  return join(root, 'dist', 'index.js');
}

const services = [
  'git',
  'jira',
  'slack',
  'notion',
  'calendar',
  'postgres',
  'docker',
  'browser',
  'drive',
  'crm',
];

/** Starts the three servers; returns the registry of 200 tools, the workspace, and `close()`. */
export async function mcpRegistry(total = 200) {
  const workspace = mkdtempSync(join(tmpdir(), 'agcore-tool-search-'));
  const clients = [
    new McpClient('everything', { type: 'stdio', ...everythingServer() }),
    new McpClient('filesystem', {
      type: 'stdio',
      command: process.execPath,
      args: [serverScript('server-filesystem'), workspace],
    }),
    new McpClient('memory', {
      type: 'stdio',
      command: process.execPath,
      args: [serverScript('server-memory')],
      env: { MEMORY_FILE_PATH: join(workspace, 'memory.jsonl') },
    }),
  ];
  const registry = new ToolRegistry();
  const real = [];
  try {
    for (const client of clients) {
      await client.connect();
      const tools = await client.tools({ needsApproval: false });
      registry.registerAll(tools, { category: client.serverName });
      real.push(...tools);
    }
  } catch (error) {
    await Promise.allSettled(clients.map((client) => client.close()));
    throw error;
  }
  const models = real.filter((tool) => tool.serverName !== 'everything');
  for (let index = 0; registry.size < total; index++) {
    const model = models[index % models.length];
    const service = services[Math.floor(index / models.length) % services.length];
    const name = `${service}_${model.name}`.slice(0, 64);
    if (registry.has(name)) continue;
    registry.register(
      defineTool({
        name,
        description: `${service}: ${model.description}`.replace(/\bfiles?\b/g, `${service} item`),
        parameters: model.parameters,
        execute: async () => `${name} done`,
      }),
      { category: service },
    );
  }
  return {
    registry,
    workspace,
    realCount: real.length,
    close: () => Promise.allSettled(clients.map((client) => client.close())),
  };
}
