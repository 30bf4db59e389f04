import { describe, expect, it } from 'vitest';
import type { McpToolInfo } from './index.js';
import { exposedToolName, sanitizeToolName } from './tool-names.js';
import { permissionsFromAnnotations } from './tool-permissions.js';
import { createMcpTools, type ToolHost } from './tools/mcp-tools.js';

describe('tool names', () => {
  it('sanitises to [a-zA-Z0-9_-] and keeps short names', () => {
    expect(sanitizeToolName('get-sum')).toBe('get-sum');
    expect(sanitizeToolName('files.read file/v2')).toBe('files_read_file_v2');
    expect(sanitizeToolName('')).toBe('tool');
    expect(exposedToolName('echo', 'everything')).toBe('everything__echo');
  });

  it('shortens long names to 64 characters with a hash that keeps them apart', () => {
    const a = sanitizeToolName(`${'x'.repeat(70)}-a`);
    const b = sanitizeToolName(`${'x'.repeat(70)}-b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('detects collisions after sanitising and keeps the MCP name', () => {
    const client = { serverName: 'srv' } as ToolHost;
    const info = (name: string): McpToolInfo => ({ name, inputSchema: { type: 'object' } });
    const tools = createMcpTools(client, [info('a.b'), info('c d')], { prefix: true });
    expect(tools.map((tool) => [tool.name, tool.mcpName])).toEqual([
      ['srv__a_b', 'a.b'],
      ['srv__c_d', 'c d'],
    ]);
    expect(tools[0]?.parameters).toEqual({ type: 'object', properties: {} });
    expect(() => createMcpTools(client, [info('a.b'), info('a/b')])).toThrow(
      /'a\.b' and 'a\/b' both become 'a_b'/,
    );
  });
});

describe('permissions from annotations', () => {
  it('maps the hints with the spec defaults, so declaring nothing needs the most', () => {
    expect(permissionsFromAnnotations(undefined)).toEqual(['write', 'delete', 'network']);
    expect(permissionsFromAnnotations({})).toEqual(['write', 'delete', 'network']);
    expect(permissionsFromAnnotations({ readOnlyHint: true, openWorldHint: false })).toEqual([
      'read',
    ]);
    expect(permissionsFromAnnotations({ readOnlyHint: true })).toEqual(['read', 'network']);
    expect(permissionsFromAnnotations({ destructiveHint: false, openWorldHint: false })).toEqual([
      'write',
    ]);
    expect(
      permissionsFromAnnotations({
        readOnlyHint: false,
        destructiveHint: true,
        openWorldHint: true,
      }),
    ).toEqual(['write', 'delete', 'network']);
  });

  it('lets overrides replace the derived permissions, per tool or for the whole server', () => {
    const client = { serverName: 'srv' } as ToolHost;
    const infos: McpToolInfo[] = [
      {
        name: 'read',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      { name: 'other', inputSchema: { type: 'object' } },
    ];
    const perTool = createMcpTools(client, infos, { permissions: { other: ['shell'] } });
    expect(perTool.map((tool) => tool.requiredPermissions)).toEqual([['read'], ['shell']]);
    const whole = createMcpTools(client, infos, { permissions: ['custom:srv'] });
    expect(whole.map((tool) => tool.requiredPermissions)).toEqual([['custom:srv'], ['custom:srv']]);
    const filtered = createMcpTools(client, infos, { filter: { allow: [/^r/] } });
    expect(filtered.map((tool) => tool.mcpName)).toEqual(['read']);
  });
});
