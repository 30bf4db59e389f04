// A tool that changes its definition after the client first saw it (a "rug pull").
import { createToolContext } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { McpClient, type McpToolChangedWarning, type McpWarning } from '../index.js';
import { failure, hostileServer } from '../test-support/servers.js';

function changesIn(warnings: readonly McpWarning[]): McpToolChangedWarning[] {
  return warnings.filter(
    (warning): warning is McpToolChangedWarning => warning.kind === 'tool_changed',
  );
}

describe('tool pinning', () => {
  it('reports a changed description with the old and new fingerprints (default: report only)', async () => {
    const warnings: McpWarning[] = [];
    const client = new McpClient('bank', hostileServer('rug-pull'), {
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      await client.connect();
      const before = await client.listTools();
      await client.callTool('swap');
      await expect.poll(async () => changesIn(warnings).length, { timeout: 10_000 }).toBe(1);
      const [change] = changesIn(warnings);
      expect(change?.serverName).toBe('bank');
      expect(change?.toolName).toBe('transfer');
      expect(change?.blocked).toBe(false);
      expect(change?.previousFingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(change?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(change?.fingerprint).not.toBe(change?.previousFingerprint);
      expect(change?.message).toMatch(/'bank'.*'transfer'.*changed/);
      const after = await client.listTools();
      expect(after).not.toBe(before);
      const [transfer] = await client.tools({ filter: { allow: ['transfer'] } });
      expect(transfer?.description).toMatch(/id_rsa/);
      // Listing again reports nothing new.
      await client.refreshTools();
      expect(changesIn(warnings)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("with onToolChange: 'block', keeps the tool out of tools() until the application accepts it", async () => {
    const warnings: McpWarning[] = [];
    const client = new McpClient('bank', hostileServer('rug-pull'), {
      onToolChange: 'block',
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      await client.connect();
      const [pinned] = await client.tools({ filter: { allow: ['transfer'] } });
      expect(await pinned?.execute({}, createToolContext())).toBe('sent');
      await client.callTool('swap');
      await expect.poll(async () => changesIn(warnings).length, { timeout: 10_000 }).toBe(1);
      expect(changesIn(warnings)[0]?.blocked).toBe(true);
      expect((await client.tools()).map((tool) => tool.mcpName)).toEqual(['swap', 'revert']);
      // A BaseTool made before the change would now run the new definition: it refuses.
      const refused = await failure(pinned?.execute({}, createToolContext()) ?? Promise.resolve());
      expect(refused.code).toBe('denied');
      expect(refused.isRecoverable()).toBe(true);
      expect(refused.message).toMatch(/'transfer'.*'bank'.*blocked.*acceptToolChange/);
      // The application accepts the new definition: the tool is back.
      expect(client.acceptToolChange('transfer')).toBe(true);
      expect(client.acceptToolChange('transfer')).toBe(false);
      const [accepted] = await client.tools({ filter: { allow: ['transfer'] } });
      expect(accepted?.description).toMatch(/id_rsa/);
      expect(await accepted?.execute({}, createToolContext())).toBe('sent, with the memo');
      expect(await pinned?.execute({}, createToolContext())).toBe('sent, with the memo');
    } finally {
      await client.close();
    }
  });

  it('keeps pins across reconnects and unblocks a tool that changes back', async () => {
    const warnings: McpWarning[] = [];
    const client = new McpClient('bank', hostileServer('rug-pull'), {
      onToolChange: 'block',
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      await client.connect();
      await client.listTools();
      await client.callTool('swap');
      await expect.poll(async () => changesIn(warnings).length, { timeout: 10_000 }).toBe(1);
      expect((await client.tools()).map((tool) => tool.mcpName)).not.toContain('transfer');
      await client.callTool('revert');
      await expect
        .poll(async () => (await client.tools()).map((tool) => tool.mcpName), { timeout: 10_000 })
        .toContain('transfer');
      // A new process serves the original definition again: still the pinned one.
      await client.reconnect();
      expect((await client.tools()).map((tool) => tool.mcpName)).toContain('transfer');
      expect(changesIn(warnings)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
