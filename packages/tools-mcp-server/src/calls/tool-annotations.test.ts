// tools/list says what each tool's requiredPermissions say, as MCP annotations, so that a client
// mapping annotations to permissions (McpClient with trustAnnotations) asks its policy the same.
import { defineTool, Permission } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningServer, serveTools } from '../index.js';
import { connectV1, connectV2 } from '../test-support/fixtures.js';

let listening: ListeningServer;

beforeAll(async () => {
  const registry = new ToolRegistry();
  const tool = (name: string, requiredPermissions?: Permission[]) =>
    defineTool({
      name,
      description: name,
      parameters: { type: 'object', properties: {} },
      ...(requiredPermissions === undefined ? {} : { requiredPermissions }),
      execute: async () => 'ok',
    });
  registry.register(tool('pure', []));
  registry.register(tool('weather', [Permission.Read, Permission.Network]));
  registry.register(tool('save', [Permission.Write]));
  registry.register(tool('shell', [Permission.Shell]));
  registry.register(tool('undeclared'));
  listening = await serveTools(registry).listen({ port: 0 });
});

afterAll(() => listening.close());

const expected = {
  pure: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  weather: { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
  save: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  shell: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  undeclared: undefined,
};

describe.each(['2025-11-25', '2026-07-28'] as const)('tools/list on %s', (era) => {
  it('carries annotations from requiredPermissions (none for a tool that declares none)', async () => {
    const client =
      era === '2025-11-25' ? await connectV1(listening.url) : await connectV2(listening.url);
    const { tools } = await client.listTools();
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))).toEqual(
      expected,
    );
    await client.close();
  });
});
