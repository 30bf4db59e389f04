// One clock per call: an MCP tool runs on its caller's time limit (the registry's), with the
// verdict every tool gets (`timeout`), and the client's own limit is for the protocol link.
import { join } from 'node:path';
import { createToolContext, ToolError, type ToolProgress } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { type ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpClient, type McpTool } from '../index.js';
import { failure, hostileServer, logLines, tempDir } from '../test-support/servers.js';

function outcome(invocation: ToolInvocation): string {
  return invocation.output.ok ? String(invocation.output.value) : invocation.output.error.code;
}

let dir: { path: string; remove(): Promise<void> };
let logFile: string;
let client: McpClient;
let sleep: McpTool;

beforeAll(async () => {
  dir = await tempDir('clock');
  logFile = join(dir.path, 'calls.log');
  // The client's own limit is far shorter than the registry's in these tests.
  client = new McpClient('clock', hostileServer('clock', { logFile }), {
    timeoutMs: 500,
    connectTimeoutMs: 60_000,
  });
  await client.connect();
  const [tool] = await client.tools();
  if (tool === undefined) throw new Error('no sleep tool');
  sleep = tool;
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await client.close();
  await dir.remove();
});

function registry(timeoutMs: number): ToolRegistry {
  const tools = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll(), timeoutMs });
  tools.register(sleep);
  return tools;
}

describe('an MCP tool under a ToolRegistry', () => {
  it("runs past the MCP client's timeoutMs when the registry allows it (a 45 s call, scaled down)", async () => {
    // Registry 2 s, client 0.5 s, the tool takes 1 s.
    const invocation = await registry(2_000).invoke('sleep', { ms: 1_000 });
    expect(outcome(invocation)).toBe('slept 1000 ms');
    expect(client.isConnected).toBe(true);
  });

  it("ends with the registry's verdict, timeout (recoverable), never mcp_timeout", async () => {
    const invocation = await registry(1_500).invoke('sleep', { ms: 30_000 });
    expect(outcome(invocation)).toBe('timeout');
    expect(invocation.output.ok ? undefined : invocation.output.error.isRecoverable()).toBe(true);
    // The server was told to stop, and the client is still usable.
    await expect
      .poll(async () => (await logLines(logFile)).some((line) => line.startsWith('cancelled')))
      .toBe(true);
    expect(outcome(await registry(5_000).invoke('sleep', { ms: 10 }))).toBe('slept 10 ms');
  });

  it('is not ended by the SDK 60 s default nor the client limit: the registry owns the clock', async () => {
    const tools = registry(120_000);
    // Only the timers and clocks are faked (I/O stays real), after the real handshake.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const calls = async (): Promise<number> =>
        (await logLines(logFile)).filter((line) => line === 'call sleep').length;
      const before = await calls();
      let settled: ToolInvocation | undefined;
      const call = tools.invoke('sleep', { ms: 600_000 }).then((invocation) => {
        settled = invocation;
      });
      // Real I/O only: wait (without timers) until the server has the call.
      while ((await calls()) === before) await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(119_000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBeUndefined();
      vi.advanceTimersByTime(1_000);
      await call;
      expect(settled === undefined ? undefined : outcome(settled)).toBe('timeout');
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands server progress to the registry, and progress extends nothing by itself', async () => {
    const updates: ToolProgress[] = [];
    const [invocation] = await registry(5_000).invokeAll(
      [{ name: 'sleep', args: { ms: 600, steps: 3 } }],
      {
        onProgress: (update) => updates.push(update),
      },
    );
    expect(invocation === undefined ? undefined : outcome(invocation)).toBe('slept 600 ms');
    expect(updates.map((update) => update.progress)).toEqual([1, 2, 3]);
  });
});

describe('an MCP tool called outside a registry', () => {
  it("has no time limit of its own without context.deadline: the client's timeoutMs does not apply", async () => {
    expect(await sleep.execute({ ms: 1_000 }, createToolContext())).toBe('slept 1000 ms');
  });

  it('fails with timeout at once, without calling, when context.deadline has passed', async () => {
    const calls = (await logLines(logFile)).length;
    const error = await failure(
      sleep.execute({ ms: 10 }, createToolContext({ deadline: Date.now() - 1 })),
    );
    expect(ToolError.isInstance(error)).toBe(true);
    expect(error.code).toBe('timeout');
    expect(error.isRecoverable()).toBe(true);
    expect(await logLines(logFile)).toHaveLength(calls);
  });

  it('gives timeout, not cancelled, when its signal aborts for a timeout', async () => {
    const error = await failure(
      sleep.execute({ ms: 30_000 }, createToolContext({ signal: AbortSignal.timeout(300) })),
    );
    expect(error.code).toBe('timeout');
    const controller = new AbortController();
    const pending = sleep.execute({ ms: 30_000 }, createToolContext({ signal: controller.signal }));
    controller.abort();
    expect((await failure(pending)).code).toBe('cancelled');
  });
});

describe('McpClient.callTool (the protocol link)', () => {
  it('keeps mcp_timeout for a direct call without a deadline', async () => {
    const error = await failure(client.callTool('sleep', { ms: 30_000 }));
    expect(error.code).toBe('mcp_timeout');
    expect(error.message).toMatch(/'sleep'.*'clock'.*500 ms/);
  });

  it('lets progress extend a call only when asked (resetTimeoutOnProgress), up to maxTotalTimeoutMs', async () => {
    const steps = { ms: 1_500, steps: 9 };
    // Progress every 150 ms, 1.5 s in all, against a 500 ms limit.
    const plain = await failure(client.callTool('sleep', steps, { onProgress: () => {} }));
    expect(plain.code).toBe('mcp_timeout');
    const extended = await client.callTool('sleep', steps, {
      onProgress: () => {},
      resetTimeoutOnProgress: true,
      maxTotalTimeoutMs: 20_000,
    });
    expect(extended.value).toBe('slept 1500 ms');
    const capped = await failure(
      client.callTool(
        'sleep',
        { ms: 3_000, steps: 20 },
        {
          onProgress: () => {},
          resetTimeoutOnProgress: true,
          maxTotalTimeoutMs: 1_000,
        },
      ),
    );
    expect(capped.code).toBe('mcp_timeout');
    expect(capped.message).toMatch(/maxTotalTimeoutMs|1000 ms/);
  });
});
