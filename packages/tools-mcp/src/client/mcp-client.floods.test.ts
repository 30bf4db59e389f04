// A server cannot make the client work without bound: floods of notifications, and many
// concurrent calls over one pipe.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolInfo } from '../index.js';
import { faultServer, hostileServer, logLines, tempDir } from '../test-support/servers.js';

let dir: { path: string; remove(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('floods');
});
afterAll(async () => {
  await dir.remove();
});

const listings = async (logFile: string): Promise<number> =>
  (await logLines(logFile)).filter((line) => line === 'list').length;

describe('McpClient under a flood of notifications', () => {
  it('coalesces 10 000 tools/list_changed into at most one listing in flight and one queued', async () => {
    const logFile = join(dir.path, 'list-changed.log');
    const changes: (readonly McpToolInfo[])[] = [];
    const client = new McpClient('flood', hostileServer('flood', { logFile }), {
      onToolsChanged: (tools) => changes.push(tools),
    });
    try {
      await client.connect();
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(['changes', 'noise']);
      expect(await listings(logFile)).toBe(1);
      await client.callTool('changes', { count: 10_000 });
      // Waits for the listing that follows the last notification, whatever is in flight.
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['changes', 'noise', 'added-1']);
      // The first listing, then one in flight and one queued behind it, at most.
      expect(await listings(logFile)).toBeLessThanOrEqual(3);
      // The list changed once: one report, with the new list.
      expect(changes).toHaveLength(1);
      expect(changes[0]?.map((tool) => tool.name)).toContain('added-1');
      expect(client.isConnected).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('lets notifications/message and progress for unknown tokens cost little: no request, few reports', async () => {
    const logFile = join(dir.path, 'noise.log');
    const errors: Error[] = [];
    const client = new McpClient('noisy', hostileServer('flood', { logFile }), {
      onError: (error) => errors.push(error),
    });
    try {
      await client.connect();
      expect((await client.callTool('noise', { count: 10_000 })).value).toBe('noisy');
      expect((await client.callTool('noise', { count: 10_000 })).value).toBe('noisy');
      expect(client.isConnected).toBe(true);
      // Nothing but the two calls reached the server: no listing, no ping, no cancellation.
      expect(await logLines(logFile)).toEqual([
        expect.stringMatching(/^start \d+$/),
        'call noise',
        'call noise',
      ]);
      // 20 000 stray progress notifications are reported, but not 20 000 times.
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.length).toBeLessThanOrEqual(25);
      expect(errors.some((error) => /suppressed/.test(error.message))).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('McpClient with many calls in flight over stdio', () => {
  it('makes 1 000 concurrent calls without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    const client = new McpClient('busy', faultServer('fault-server.mjs', 'exit-mid-call'), {
      timeoutMs: 120_000,
    });
    try {
      await client.connect();
      // 4 KiB per request: the pipe to the server fills, and writes wait for 'drain'.
      const message = 'x'.repeat(4096);
      const results = await Promise.all(
        Array.from({ length: 1_000 }, () => client.callTool('echo', { message })),
      );
      expect(results.every((result) => result.value === message)).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await client.close();
    }
  });
});
