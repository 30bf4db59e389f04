// MCP tools under the real ToolRegistry and PermissionChecker (dev dependencies only: the
// package itself depends on tools-core alone).
import { join } from 'node:path';
import type { ToolProgress } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { type ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../index.js';
import { loggedFaultServer, logLines, tempDir } from '../test-support/servers.js';

function errorCode(invocation: ToolInvocation): string | undefined {
  return invocation.output.ok ? undefined : invocation.output.error.code;
}

describe('MCP tools in a ToolRegistry', () => {
  let dir: { path: string; remove(): Promise<void> };
  let logFile: string;
  let client: McpClient;

  beforeAll(async () => {
    dir = await tempDir('registry');
    logFile = join(dir.path, 'calls.log');
    client = new McpClient('faults', loggedFaultServer('exit-mid-call', logFile), {
      timeoutMs: 600_000,
    });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    await dir.remove();
  });

  it('never lets a tool that declared no annotations past the default PermissionChecker', async () => {
    // The default policy allows read and network, and allows tools that declare nothing.
    const registry = new ToolRegistry({ permissionChecker: new PermissionChecker() });
    registry.registerAll(await client.tools({ prefix: true }));
    const denied = await registry.invoke('faults__crash', {});
    expect(errorCode(denied)).toBe('permission_denied');
    const allowed = await registry.invoke('faults__echo', { message: 'read-only' });
    expect(allowed.output).toEqual({ ok: true, value: 'read-only' });
    expect(await logLines(logFile)).not.toContain('call crash');
    expect(client.isConnected).toBe(true);
  });

  it('keeps the server text of an isError result as execution_failed', async () => {
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools());
    const invocation = await registry.invoke('fail', {});
    expect(errorCode(invocation)).toBe('execution_failed');
    expect(invocation.output.ok ? '' : invocation.output.error.message).toMatch(
      /disk quota exceeded/,
    );
  });

  it('passes progress from the server to invokeAll onProgress', async () => {
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools());
    const updates: ToolProgress[] = [];
    const [invocation] = await registry.invokeAll([{ name: 'steps', args: {} }], {
      onProgress: (update) => updates.push(update),
    });
    expect(invocation?.output).toEqual({ ok: true, value: 'done' });
    expect(updates.map((update) => update.progress)).toEqual([1, 2, 3]);
  });

  it('cancels the MCP request when the registry times out or the caller aborts', async () => {
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools());
    const timedOut = await registry.invoke('hang', {}, { timeoutMs: 300 });
    expect(errorCode(timedOut)).toBe('timeout');
    await expect
      .poll(async () => (await logLines(logFile)).filter((line) => line === 'cancelled hang'))
      .toHaveLength(1);
    const controller = new AbortController();
    const pending = registry.invoke('hang', {}, { signal: controller.signal });
    await expect
      .poll(async () => (await logLines(logFile)).filter((line) => line === 'call hang'))
      .toHaveLength(2);
    controller.abort();
    expect(errorCode(await pending)).toBe('cancelled');
    await expect
      .poll(async () => (await logLines(logFile)).filter((line) => line === 'cancelled hang'))
      .toHaveLength(2);
    expect((await registry.invoke('echo', { message: 'still fine' })).output).toEqual({
      ok: true,
      value: 'still fine',
    });
  });
});
