import { getEventListeners } from 'node:events';
import { join } from 'node:path';
import { createToolContext, ToolError, type ToolProgress } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpTool } from '../index.js';
import { faultServer, loggedFaultServer, logLines, tempDir } from '../test-support/servers.js';

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    return error as ToolError;
  }
  throw new Error('expected a rejection');
}

function byMcpName(tools: readonly McpTool[], name: string): McpTool {
  const tool = tools.find((candidate) => candidate.mcpName === name);
  if (tool === undefined) throw new Error(`no tool '${name}'`);
  return tool;
}

describe('McpClient.tools() against a real server', () => {
  let dir: { path: string; remove(): Promise<void> };
  let logFile: string;
  let client: McpClient;
  let tools: McpTool[];

  beforeAll(async () => {
    dir = await tempDir('tools');
    logFile = join(dir.path, 'calls.log');
    client = new McpClient('faults', loggedFaultServer('exit-mid-call', logFile), {
      timeoutMs: 600_000,
    });
    await client.connect();
    tools = await client.tools({ prefix: true });
  });
  afterAll(async () => {
    await client.close();
    await dir.remove();
  });

  it('gives each tool the server inputSchema as parameters and calls it by its MCP name', async () => {
    const echo = byMcpName(tools, 'echo');
    expect(echo.name).toBe('faults__echo');
    expect(echo.serverName).toBe('faults');
    expect(echo.parameters).toEqual({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    expect(await echo.execute({ message: 'via the adapter' }, createToolContext())).toBe(
      'via the adapter',
    );
  });

  it('turns an isError result into a recoverable execution_failed carrying the server text', async () => {
    const error = await failure(byMcpName(tools, 'fail').execute({}, createToolContext()));
    expect(ToolError.isInstance(error)).toBe(true);
    expect(error.code).toBe('execution_failed');
    expect(error.isRecoverable()).toBe(true);
    expect(error.message).toMatch(/disk quota exceeded/);
    expect(error.toolName).toBe('fail');
  });

  it('hands every progress notification to ToolContext.progress, the last one included', async () => {
    const updates: ToolProgress[] = [];
    const result = await byMcpName(tools, 'steps').execute(
      {},
      createToolContext({ progress: (update) => updates.push(update) }),
    );
    expect(result).toBe('done');
    expect(updates).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  it('cancels through context.signal: rejects with cancelled and the server gets notifications/cancelled', async () => {
    const controller = new AbortController();
    const pending = byMcpName(tools, 'hang').execute(
      {},
      createToolContext({ signal: controller.signal }),
    );
    await expect.poll(() => logLines(logFile), { timeout: 20_000 }).toContain('call hang');
    controller.abort();
    const error = await failure(pending);
    expect(error.code).toBe('cancelled');
    expect(error.message).toMatch(/'hang'.*'faults'/);
    await expect.poll(() => logLines(logFile), { timeout: 20_000 }).toContain('cancelled hang');
    // Still usable afterwards.
    expect(await byMcpName(tools, 'echo').execute({ message: 'ok' }, createToolContext())).toBe(
      'ok',
    );
  });

  it('rejects at once with cancelled when context.signal is already aborted, without calling', async () => {
    const before = (await logLines(logFile)).length;
    const error = await failure(
      byMcpName(tools, 'crash').execute({}, createToolContext({ signal: AbortSignal.abort() })),
    );
    expect(error.code).toBe('cancelled');
    expect(await logLines(logFile)).toHaveLength(before);
  });

  it('keeps a long-lived signal safe: no listener per call, no late cancellation of finished calls', async () => {
    const controller = new AbortController();
    const context = createToolContext({ signal: controller.signal });
    const echo = byMcpName(tools, 'echo');
    for (let index = 0; index < 50; index++) {
      expect(await echo.execute({ message: `n${index}` }, context)).toBe(`n${index}`);
    }
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => echo.execute({ message: `p${index}` }, context)),
    );
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    controller.abort();
    expect(await echo.execute({ message: 'after' }, createToolContext())).toBe('after');
    expect((await logLines(logFile)).filter((line) => line.startsWith('cancelled echo'))).toEqual(
      [],
    );
  });

  it('keeps audio, images and resources as typed content', async () => {
    const media = await client.callTool('media');
    expect(media.value).toEqual([
      { type: 'text', text: 'a beep' },
      { type: 'audio', data: 'UklGRiQAAABXQVZF', mimeType: 'audio/wav' },
      {
        type: 'resource',
        resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes' },
      },
    ]);
    expect(media.content).toHaveLength(3);
    const structured = await client.callTool('structured-image');
    expect(structured.structuredContent).toEqual({ width: 1, height: 1 });
    expect(structured.value).toEqual({
      structuredContent: { width: 1, height: 1 },
      content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
    });
  });

  it('derives permissions from annotations; a tool that declares nothing needs write, delete and network', async () => {
    expect(byMcpName(tools, 'echo').requiredPermissions).toEqual(['read']);
    expect(byMcpName(tools, 'structured-image').requiredPermissions).toEqual(['read', 'network']);
    expect(byMcpName(tools, 'crash').annotations).toBeUndefined();
    expect(byMcpName(tools, 'crash').requiredPermissions).toEqual(['write', 'delete', 'network']);
    for (const tool of tools) expect(tool.requiredPermissions.length).toBeGreaterThan(0);
  });

  it('refuses an empty permission override, which would let a tool declare nothing', async () => {
    await expect(client.tools({ permissions: [] })).rejects.toThrow(TypeError);
    await expect(client.tools({ permissions: { crash: [] } })).rejects.toThrow(/crash/);
  });

  it('filters by name per server', async () => {
    const allowed = await client.tools({ filter: { allow: ['echo', /^f/] } });
    expect(allowed.map((tool) => tool.name)).toEqual(['echo', 'flood', 'fail']);
    const blocked = await client.tools({ filter: { allow: [/^f/], block: ['flood'] } });
    expect(blocked.map((tool) => tool.name)).toEqual(['fail']);
  });
});

describe('tool names from a real server', () => {
  it('sanitises, shortens long names with a hash to 64 characters, and calls the original MCP name', async () => {
    const client = new McpClient('odd', faultServer('fault-server.mjs', 'odd-names'));
    try {
      await client.connect();
      const tools = await client.tools({ prefix: true });
      const names = tools.map((tool) => tool.name);
      expect(names[0]).toBe('odd__weird_name_tool_v2');
      for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(names[1]).toHaveLength(64);
      expect(names[2]).toHaveLength(64);
      expect(new Set(names).size).toBe(3);
      for (const tool of tools) {
        expect(await tool.execute({}, createToolContext())).toBe(`called ${tool.mcpName}`);
      }
    } finally {
      await client.close();
    }
  });

  it('reports tools that collide after sanitising, naming both, and lets a filter resolve it', async () => {
    const client = new McpClient('clash', faultServer('fault-server.mjs', 'colliding'));
    try {
      await client.connect();
      const error = await failure(client.tools());
      expect(error.code).toBe('mcp_error');
      expect(error.message).toMatch(/'a\.b' and 'a\/b' both become 'a_b'/);
      const tools = await client.tools({ filter: { block: ['a/b'] } });
      expect(tools.map((tool) => [tool.name, tool.mcpName])).toEqual([
        ['a_b', 'a.b'],
        ['echo', 'echo'],
      ]);
      expect(await tools[0]?.execute({}, createToolContext())).toBe('called a.b');
    } finally {
      await client.close();
    }
  });
});
