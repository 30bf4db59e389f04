// Issue 12: McpClient.tools({ needsApproval: true }) derives each tool's needsApproval from its
// annotations — of a trusted server only; every tool of an untrusted one needs approval.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolInfo } from './index.js';
import { createMcpTools, type ToolHost } from './mcp-tools.js';
import {
  type HttpServerProcess,
  hostileServer,
  serverEntries,
  startEverythingHttp,
  tempDir,
} from './test-support/servers.js';
import { needsApprovalFromAnnotations } from './tool-permissions.js';

describe('needsApproval from annotations', () => {
  it('a tool not hinted read-only, or hinted destructive, needs approval', () => {
    expect(needsApprovalFromAnnotations({ readOnlyHint: true })).toBe(false);
    expect(needsApprovalFromAnnotations({ readOnlyHint: true, destructiveHint: false })).toBe(
      false,
    );
    expect(needsApprovalFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toBe(true);
    expect(needsApprovalFromAnnotations({ readOnlyHint: false, destructiveHint: false })).toBe(
      true,
    );
    expect(needsApprovalFromAnnotations({ destructiveHint: false })).toBe(true);
    expect(needsApprovalFromAnnotations({ openWorldHint: false, idempotentHint: true })).toBe(true);
    expect(needsApprovalFromAnnotations(undefined)).toBe(true);
  });

  it('is left out unless asked for, and ignores annotations of an untrusted server', () => {
    const infos: McpToolInfo[] = [
      { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'write', inputSchema: { type: 'object' } },
    ];
    const trusted = { serverName: 'srv', trustAnnotations: true } as ToolHost;
    const untrusted = { serverName: 'srv', trustAnnotations: false } as ToolHost;
    expect(createMcpTools(trusted, infos).map((tool) => 'needsApproval' in tool)).toEqual([
      false,
      false,
    ]);
    expect(
      createMcpTools(trusted, infos, { needsApproval: true }).map((tool) => tool.needsApproval),
    ).toEqual([false, true]);
    expect(
      createMcpTools(untrusted, infos, { needsApproval: true }).map((tool) => tool.needsApproval),
    ).toEqual([true, true]);
    expect(
      createMcpTools(trusted, infos, { needsApproval: false }).map((tool) => tool.needsApproval),
    ).toEqual([undefined, undefined]);
    expect(() => createMcpTools(trusted, infos, { needsApproval: 'yes' as never })).toThrow(
      TypeError,
    );
  });
});

describe('McpClient.tools({ needsApproval: true }) against real servers', () => {
  let dir: { path: string; remove(): Promise<void> };
  let client: McpClient;
  beforeAll(async () => {
    dir = await tempDir('approval');
    client = new McpClient('fs', {
      type: 'stdio',
      command: process.execPath,
      args: [serverEntries.filesystem, dir.path],
    });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    await dir.remove();
  });

  it('server-filesystem (trusted stdio): reads need none, writes and moves need approval', async () => {
    const tools = await client.tools({ needsApproval: true });
    const byName = new Map(tools.map((tool) => [tool.mcpName, tool]));
    expect(byName.get('read_text_file')?.needsApproval).toBe(false);
    expect(byName.get('list_directory')?.needsApproval).toBe(false);
    expect(byName.get('write_file')?.needsApproval).toBe(true);
    expect(byName.get('move_file')?.needsApproval).toBe(true);
    for (const tool of tools) {
      expect(tool.needsApproval).toBe(needsApprovalFromAnnotations(tool.annotations));
    }
  });

  it('a server that lies (readOnlyHint on a tool that deletes) is caught only when untrusted', async () => {
    for (const trustAnnotations of [true, false]) {
      const liar = new McpClient('liar', hostileServer('liar'), { trustAnnotations });
      try {
        await liar.connect();
        const [wipe] = await liar.tools({ needsApproval: true, filter: { allow: ['wipe'] } });
        expect(wipe?.needsApproval).toBe(!trustAnnotations);
      } finally {
        await liar.close();
      }
    }
  });

  describe('over HTTP (untrusted by default)', () => {
    let server: HttpServerProcess;
    beforeAll(async () => {
      server = await startEverythingHttp('streamableHttp');
    });
    afterAll(async () => {
      await server.stop();
    });

    it('every tool needs approval, read-only hints or not', async () => {
      const remote = new McpClient('remote', { type: 'streamable-http', url: server.url });
      try {
        await remote.connect();
        const tools = await remote.tools({ needsApproval: true });
        expect(tools.find((tool) => tool.mcpName === 'echo')?.annotations?.readOnlyHint).toBe(true);
        expect(tools.every((tool) => tool.needsApproval === true)).toBe(true);
      } finally {
        await remote.close();
      }
    });
  });
});
