// The contenders of the callTool bench (src/call-tool.bench.ts): one `call()` is one
// `callTool('echo', { message })` of a client, checked; each contender owns its connection.
import { createToolContext } from '@agcore/tools-core';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpClient } from '../index.js';
import { serverEntries } from './servers.js';

/** One client: a checked call, and its close. */
export interface Contender {
  readonly call: () => Promise<void>;
  readonly close: () => Promise<void>;
}

/** The McpClient class of one library root (`importLibrary(root, '@agcore/tools-mcp')`). */
export type McpClientClass = typeof McpClient;

/** Where the servers are: server-everything run over stdio, the v2 test server over HTTP. */
export interface Servers {
  /** The URL of the v2 SDK test server (both eras, stateless), in another process. */
  readonly httpUrl: string;
}

const message = 'benchmark';
const expected = `Echo: ${message}`;
const stdio = { command: process.execPath, args: [serverEntries.everything, 'stdio'] };

function check(text: unknown, who: string): void {
  if (text !== expected) throw new Error(`${who} answered ${String(text)}`);
}

const firstText = (result: object): unknown =>
  ((result as { content?: { text?: unknown }[] }).content ?? [])[0]?.text;

/** The v1 SDK `Client` over stdio to its own server-everything. */
export async function rawStdio(): Promise<Contender> {
  const client = new Client({ name: 'bench-raw', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ ...stdio, stderr: 'ignore' }));
  return {
    call: async () =>
      check(firstText(await client.callTool({ name: 'echo', arguments: { message } })), 'raw'),
    close: () => client.close(),
  };
}

/** The v1 SDK `Client` over Streamable HTTP (2025-11-25). */
export async function rawHttpV1(servers: Servers): Promise<Contender> {
  const client = new Client({ name: 'bench-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(servers.httpUrl)));
  return {
    call: async () =>
      check(firstText(await client.callTool({ name: 'echo', arguments: { message } })), 'v1'),
    close: () => client.close(),
  };
}

/** The v2 SDK `Client` pinned to 2026-07-28 over Streamable HTTP. */
export async function rawHttpV2(servers: Servers): Promise<Contender> {
  const client = new ClientV2(
    { name: 'bench-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new HttpV2(new URL(servers.httpUrl)));
  return {
    call: async () =>
      check(firstText(await client.callTool({ name: 'echo', arguments: { message } })), 'v2'),
    close: () => client.close(),
  };
}

/** The transports McpClient is benched on. */
export type Way = 'stdio' | 'http-legacy' | 'http-modern';

/** `McpClient.callTool` of the class `Mcp` on `way`. */
export async function mcpCall(Mcp: McpClientClass, way: Way, servers: Servers): Promise<Contender> {
  const client =
    way === 'stdio'
      ? new Mcp('bench', { type: 'stdio', ...stdio })
      : new Mcp(
          'bench',
          { type: 'streamable-http', url: servers.httpUrl },
          way === 'http-modern' ? { protocol: '2026-07-28' } : {},
        );
  await client.connect();
  return {
    call: async () => check((await client.callTool('echo', { message })).value, 'McpClient'),
    close: () => client.close(),
  };
}

/** The `BaseTool` from `tools()` of the class `Mcp` over stdio, one ToolContext for all calls. */
export async function mcpTool(Mcp: McpClientClass): Promise<Contender> {
  const client = new Mcp('bench', { type: 'stdio', ...stdio });
  await client.connect();
  const echo = (await client.tools()).find((tool) => tool.name === 'echo');
  if (echo === undefined) throw new Error('server-everything has no echo tool');
  const context = createToolContext();
  return {
    call: async () => check(await echo.execute({ message }, context), 'BaseTool'),
    close: () => client.close(),
  };
}
