// One bad tool does not take the server down with it: lenient listing, output that lies.
import { createToolContext } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { McpClient, type McpWarning } from '../index.js';
import { failure, hostileServer } from '../test-support/servers.js';

describe('McpClient.listTools() with invalid tools in the listing', () => {
  it('keeps the valid tools and reports each invalid one once, in one sentence', async () => {
    const warnings: McpWarning[] = [];
    const client = new McpClient('mixed', hostileServer('invalid-tools'), {
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      await client.connect();
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['echo', 'also-fine']);
      expect((await client.tools()).map((tool) => tool.name)).toEqual(['echo', 'also-fine']);
      expect(await (await client.tools())[0]?.execute({}, createToolContext())).toBe('called echo');
      expect(warnings.map((warning) => [warning.kind, warning.toolName])).toEqual([
        ['invalid_tool', 'bad-type'],
        ['invalid_tool', 'no-schema'],
        ['invalid_tool', '#4'],
        ['invalid_tool', 'bad-output'],
      ]);
      for (const warning of warnings) {
        expect(warning.serverName).toBe('mixed');
        expect(warning.message).toMatch(/^MCP server 'mixed': tool '[^']+' /);
        // One English sentence, no zod dump.
        expect(warning.message).not.toMatch(/\n|"code":|\[\s*{/);
        expect(warning.message.trim().endsWith('.')).toBe(true);
      }
      expect(warnings[0]?.message).toMatch(/inputSchema.*"object"/);
      expect(warnings[1]?.message).toMatch(/inputSchema/);
      expect(warnings[3]?.message).toMatch(/outputSchema/);
      // Reported once: listing again finds the same problems and says nothing more.
      await client.refreshTools();
      await client.reconnect();
      await client.listTools();
      expect(warnings).toHaveLength(4);
    } finally {
      await client.close();
    }
  });
});

describe('McpClient.callTool() when the output breaks its outputSchema', () => {
  it('is the server failing (execution_failed), not the caller sending bad arguments', async () => {
    const client = new McpClient('liar', hostileServer('liar'));
    try {
      await client.connect();
      await client.listTools();
      const error = await failure(client.callTool('report'));
      expect(error.code).toBe('execution_failed');
      expect(error.message).toMatch(/'report'.*'liar'.*outputSchema/);
    } finally {
      await client.close();
    }
  });
});
