// Issue 12: McpClient.tools({ needsApproval: true }) derives each tool's needsApproval from its
// annotations — of a trusted server only; every tool of an untrusted one needs approval.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpTool, type McpToolInfo } from '../index.js';
import {
  type HttpServerProcess,
  hostileServer,
  serverEntries,
  startEverythingHttp,
  tempDir,
} from '../test-support/servers.js';
import { needsApprovalFromAnnotations } from '../tool-permissions.js';
import { createMcpTools, type ToolHost } from './mcp-tools.js';

/** What the LLM loop hears from a tool's `needsApproval` (undefined: the tool has none). */
async function asked(tool: McpTool | undefined): Promise<boolean | undefined> {
  return tool?.needsApproval?.();
}

/** A client as the tools see it, serving `infos` as its latest listing. */
function host(trustAnnotations: boolean, infos: readonly McpToolInfo[]): ToolHost {
  return {
    serverName: 'srv',
    trustAnnotations,
    standing: (name) => (infos.some((info) => info.name === name) ? 'usable' : 'unlisted'),
    current: (name) => infos.find((info) => info.name === name),
  } as ToolHost;
}

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

  it('is left out unless asked for, and ignores annotations of an untrusted server', async () => {
    const infos: McpToolInfo[] = [
      { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'write', inputSchema: { type: 'object' } },
    ];
    const trusted = host(true, infos);
    const untrusted = host(false, infos);
    const verdicts = (tools: readonly McpTool[]): Promise<(boolean | undefined)[]> =>
      Promise.all(tools.map(asked));
    expect(createMcpTools(trusted, infos).map((tool) => 'needsApproval' in tool)).toEqual([
      false,
      false,
    ]);
    expect(await verdicts(createMcpTools(trusted, infos, { needsApproval: true }))).toEqual([
      false,
      true,
    ]);
    expect(await verdicts(createMcpTools(untrusted, infos, { needsApproval: true }))).toEqual([
      true,
      true,
    ]);
    expect(await verdicts(createMcpTools(trusted, infos, { needsApproval: false }))).toEqual([
      undefined,
      undefined,
    ]);
    // A tool the latest listing no longer has needs approval whatever it was.
    const [read] = createMcpTools(trusted, infos, { needsApproval: true });
    expect(await asked(createMcpTools(host(true, []), infos, { needsApproval: true })[0])).toBe(
      true,
    );
    expect(await asked(read)).toBe(false);
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
    expect(await asked(byName.get('read_text_file'))).toBe(false);
    expect(await asked(byName.get('list_directory'))).toBe(false);
    expect(await asked(byName.get('write_file'))).toBe(true);
    expect(await asked(byName.get('move_file'))).toBe(true);
    for (const tool of tools) {
      expect(await asked(tool)).toBe(needsApprovalFromAnnotations(tool.annotations));
    }
  });

  it('a server that lies (readOnlyHint on a tool that deletes) is caught only when untrusted', async () => {
    for (const trustAnnotations of [true, false]) {
      const liar = new McpClient('liar', hostileServer('liar'), { trustAnnotations });
      try {
        await liar.connect();
        const [wipe] = await liar.tools({ needsApproval: true, filter: { allow: ['wipe'] } });
        expect(await asked(wipe)).toBe(!trustAnnotations);
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
        expect(await Promise.all(tools.map(asked))).toEqual(tools.map(() => true));
      } finally {
        await remote.close();
      }
    });
  });
});
