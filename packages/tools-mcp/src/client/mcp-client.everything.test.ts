import { createToolContext, ToolError, type ToolProgress } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolInfo } from '../index.js';
import { everythingStdio, isAlive } from '../test-support/servers.js';

// The core suite runs on both engines: the v1 SDK ('legacy') and the v2 SDK falling back to
// 2025-11-25 ('auto'), the server being a 2025-11-25 one.
describe.each(['legacy', 'auto'] as const)(
  'McpClient (protocol: %s) against server-everything over stdio',
  (protocol) => {
    let client: McpClient;
    const changes: (readonly McpToolInfo[])[] = [];

    beforeAll(async () => {
      client = new McpClient('everything', everythingStdio(), {
        protocol,
        timeoutMs: 20_000,
        onToolsChanged: (tools) => changes.push(tools),
        onElicitation: async () => ({ action: 'accept', content: {} }),
      });
      await client.connect();
    });
    afterAll(async () => {
      await client.close();
    });

    it('lists the tools with their schemas and annotations', async () => {
      const tools = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'echo',
          'get-sum',
          'get-structured-content',
          'get-tiny-image',
          'trigger-long-running-operation',
        ]),
      );
      const sum = tools.find((tool) => tool.name === 'get-sum');
      expect(sum?.inputSchema.type).toBe('object');
      expect(Object.keys(sum?.inputSchema.properties ?? {})).toEqual(['a', 'b']);
      expect(sum?.annotations?.readOnlyHint).toBe(true);
      expect(client.serverVersion?.name).toBe('mcp-servers/everything');
      // Cached: the same array comes back until the list changes.
      expect(await client.listTools()).toBe(await client.listTools());
    });

    it('re-lists all tools after notifications/tools/list_changed (sent right after initialize)', async () => {
      await expect.poll(() => changes.length, { timeout: 15_000 }).toBeGreaterThan(0);
      const latest = await client.listTools();
      // Registered by the server only after initialize, for a client that declares elicitation.
      expect(latest.map((tool) => tool.name)).toContain('trigger-elicitation-request');
    });

    it('calls echo and get-sum', async () => {
      expect((await client.callTool('echo', { message: 'héllo' })).value).toBe('Echo: héllo');
      const sum = await client.callTool('get-sum', { a: 2, b: 3 });
      expect(sum.value).toBe('The sum of 2 and 3 is 5.');
      expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }]);
    });

    it('returns structuredContent as JSON', async () => {
      const result = await client.callTool('get-structured-content', { location: 'Chicago' });
      expect(result.value).toMatchObject({
        temperature: expect.any(Number),
        conditions: expect.any(String),
      });
      expect(result.structuredContent).toEqual(result.value);
    });

    it('keeps images as typed content', async () => {
      const result = await client.callTool('get-tiny-image', {});
      const image = result.content.find((block) => block.type === 'image');
      expect(image).toMatchObject({
        type: 'image',
        mimeType: 'image/png',
        data: expect.stringMatching(/^[A-Za-z0-9+/=]+$/),
      });
      expect(Array.isArray(result.value)).toBe(true);
      expect(result.value).toContainEqual(image);
    });

    it('reports bad arguments as a recoverable error carrying the server text', async () => {
      const error = await client
        .callTool('get-sum', { a: 'two' })
        .catch((caught: unknown) => caught);
      expect(ToolError.isInstance(error)).toBe(true);
      const toolError = error as ToolError;
      expect(['execution_failed', 'invalid_arguments']).toContain(toolError.code);
      expect(toolError.isRecoverable()).toBe(true);
      expect(toolError.message).toMatch(/get-sum/);
    });

    it('reports an unknown tool as a recoverable error', async () => {
      const error = (await client
        .callTool('no-such-tool', {})
        .catch((caught: unknown) => caught)) as ToolError;
      expect(error.isRecoverable()).toBe(true);
      expect(error.message).toMatch(/no-such-tool/);
    });

    it('delivers progress and, when asked, restarts the limit on each progress notification', async () => {
      const updates: ToolProgress[] = [];
      // 2.5 s in 8 steps: a 1 500 ms limit is only met because progress restarts it.
      const result = await client.callTool(
        'trigger-long-running-operation',
        { duration: 2.5, steps: 8 },
        {
          timeoutMs: 1_500,
          onProgress: (update) => updates.push(update),
          resetTimeoutOnProgress: true,
        },
      );
      expect(result.value).toMatch(/Long running operation completed/);
      expect(updates.map((update) => update.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(updates[0]?.total).toBe(8);
    });

    it('bounds a progress-reset call by maxTotalTimeoutMs with mcp_timeout', async () => {
      const error = (await client
        .callTool(
          'trigger-long-running-operation',
          { duration: 3, steps: 12 },
          {
            timeoutMs: 900,
            maxTotalTimeoutMs: 600,
            onProgress: () => {},
            resetTimeoutOnProgress: true,
          },
        )
        .catch((caught: unknown) => caught)) as ToolError;
      expect(error.code).toBe('mcp_timeout');
    });

    it('times out with mcp_timeout (not cancelled) and stays usable', async () => {
      const error = (await client
        .callTool('trigger-long-running-operation', { duration: 3, steps: 1 }, { timeoutMs: 300 })
        .catch((caught: unknown) => caught)) as ToolError;
      expect(error.code).toBe('mcp_timeout');
      expect(error.message).toMatch(/300 ms/);
      expect((await client.callTool('echo', { message: 'still here' })).value).toBe(
        'Echo: still here',
      );
    });

    it('cancels mid-way with cancelled (not mcp_timeout) and stays usable', async () => {
      const controller = new AbortController();
      const updates: ToolProgress[] = [];
      const call = client.callTool(
        'trigger-long-running-operation',
        { duration: 5, steps: 10 },
        {
          signal: controller.signal,
          onProgress: (update) => {
            updates.push(update);
            if (update.progress === 2) controller.abort();
          },
        },
      );
      const error = (await call.catch((caught: unknown) => caught)) as ToolError;
      expect(error.code).toBe('cancelled');
      expect(updates.length).toBe(2);
      expect((await client.callTool('echo', { message: 'after cancel' })).value).toBe(
        'Echo: after cancel',
      );
    });

    it('rejects at once when the signal is already aborted', async () => {
      const error = (await client
        .callTool('echo', { message: 'x' }, { signal: AbortSignal.abort() })
        .catch((caught: unknown) => caught)) as ToolError;
      expect(error.code).toBe('cancelled');
    });

    it('gives BaseTools with prefixed names, derived permissions and progress through the context', async () => {
      const tools = await client.tools({
        prefix: true,
        filter: { block: [/^trigger-(elicitation|sampling|url)/] },
      });
      const echo = tools.find((tool) => tool.mcpName === 'echo');
      expect(echo?.name).toBe('everything__echo');
      expect(echo?.requiredPermissions).toEqual(['read']);
      expect(tools.some((tool) => tool.mcpName === 'trigger-elicitation-request')).toBe(false);
      for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(await echo?.execute({ message: 'tool' }, createToolContext())).toBe('Echo: tool');
      const long = tools.find((tool) => tool.mcpName === 'trigger-long-running-operation');
      const updates: ToolProgress[] = [];
      await long?.execute(
        { duration: 0.4, steps: 2 },
        createToolContext({ progress: (update) => updates.push(update) }),
      );
      expect(updates).toHaveLength(2);
    });

    it('answers an elicitation through onElicitation', async () => {
      const result = await client.callTool('trigger-elicitation-request', {});
      expect(JSON.stringify(result.value)).toMatch(/accept/i);
    });

    it('declares no elicitation without a handler, so the server offers no elicitation tool', async () => {
      const changed: (readonly McpToolInfo[])[] = [];
      const plain = new McpClient('plain', everythingStdio(), {
        onToolsChanged: (tools) => changed.push(tools),
      });
      try {
        await plain.connect();
        await plain.listTools();
        await expect.poll(() => changed.length, { timeout: 15_000 }).toBeGreaterThan(0);
        const names = (await plain.listTools()).map((tool) => tool.name);
        expect(names).toContain('echo');
        expect(names).not.toContain('trigger-elicitation-request');
      } finally {
        await plain.close();
      }
    });

    it('closes the server process, twice safely, and then refuses calls', async () => {
      const other = new McpClient('everything-2', everythingStdio());
      await other.connect();
      const pid = other.pid;
      expect(pid).toBeTypeOf('number');
      await Promise.all([other.close(), other.close()]);
      await other.close();
      expect(isAlive(pid ?? 0)).toBe(false);
      const error = (await other
        .callTool('echo', { message: 'x' })
        .catch((caught: unknown) => caught)) as ToolError;
      expect(error.code).toBe('mcp_not_initialized');
    });
  },
);
