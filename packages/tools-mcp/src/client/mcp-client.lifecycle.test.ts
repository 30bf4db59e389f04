import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpClient, type McpToolError } from '../index.js';
import {
  failure,
  faultServer,
  loggedFaultServer,
  logLines,
  serverEntries,
  tempDir,
} from '../test-support/servers.js';

let dir: { path: string; remove(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('lifecycle');
});
afterAll(async () => {
  await dir.remove();
});

describe('McpClient before connect() and after close()', () => {
  it('refuses every request before connect() with mcp_not_initialized, naming the server', async () => {
    const client = new McpClient('idle', {
      type: 'stdio',
      command: process.execPath,
      args: [serverEntries.everything, 'stdio'],
    });
    expect(client.isConnected).toBe(false);
    expect(client.pid).toBeUndefined();
    const attempts: [string, Promise<unknown>][] = [
      ['callTool', client.callTool('echo', { message: 'x' })],
      ['listTools', client.listTools()],
      ['refreshTools', client.refreshTools()],
      ['tools', client.tools()],
    ];
    for (const [what, attempt] of attempts) {
      const error = await failure(attempt);
      expect(error.code, what).toBe('mcp_not_initialized');
      expect(error.serverName).toBe('idle');
      expect(error.message).toMatch(/'idle'.*connect\(\)/);
    }
    expect(client.pid).toBeUndefined(); // nothing was started behind the caller's back
    await client.close(); // closing a client that never connected is a no-op
  });

  it('rejects a pending call when the client is closed, and can connect again afterwards', async () => {
    const client = new McpClient('closing', faultServer('fault-server.mjs', 'exit-mid-call'), {
      timeoutMs: 600_000,
      closeGraceMs: 300,
    });
    await client.connect();
    const pending = client.callTool('hang');
    await client.close();
    const error = await failure(pending);
    expect(error.code).toBe('mcp_error');
    expect(error.message).toMatch(/'closing'.*closed/);
    expect((await failure(client.callTool('echo', { message: 'x' }))).code).toBe(
      'mcp_not_initialized',
    );
    await client.connect();
    expect((await client.callTool('echo', { message: 'again' })).value).toBe('again');
    await client.close();
  });
});

describe('McpClient time limits', () => {
  it('applies options.timeoutMs to every call', async () => {
    const client = new McpClient('sleepy', faultServer('fault-server.mjs', 'hang'), {
      timeoutMs: 400,
      connectTimeoutMs: 60_000,
    });
    try {
      await client.connect();
      const error = await failure(client.callTool('echo', { message: 'x' }));
      expect(error.code).toBe('mcp_timeout');
      expect(error.message).toMatch(/'sleepy'.*400 ms/);
    } finally {
      await client.close();
    }
  });

  it('applies withTimeout(ms) to later calls, and chains', async () => {
    const client = new McpClient('sleepy', faultServer('fault-server.mjs', 'hang'));
    try {
      await client.connect();
      expect(client.withTimeout(350)).toBe(client);
      const error = await failure(client.callTool('echo', { message: 'x' }));
      expect(error.code).toBe('mcp_timeout');
      expect(error.message).toMatch(/350 ms/);
      expect(() => client.withTimeout(0)).toThrow(TypeError);
      expect(() => client.withTimeout(Number.NaN)).toThrow(TypeError);
      await expect(client.callTool('echo', { message: 'x' }, { timeoutMs: -5 })).rejects.toThrow(
        TypeError,
      );
    } finally {
      await client.close();
    }
  });

  it('defaults to 30 000 ms per request, not the SDK 60 s', async () => {
    const client = new McpClient('sleepy', faultServer('fault-server.mjs', 'hang'));
    await client.connect();
    // Only the timers are faked (I/O stays real), after the real handshake.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: unknown = 'pending';
      const call = client.callTool('echo', { message: 'x' }).then(
        () => {
          outcome = 'resolved';
        },
        (error: unknown) => {
          outcome = error;
        },
      );
      await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(29_999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(outcome).toBe('pending');
      vi.advanceTimersByTime(1);
      await call;
      expect((outcome as McpToolError).code).toBe('mcp_timeout');
      expect((outcome as McpToolError).message).toMatch(/30000 ms/);
    } finally {
      vi.useRealTimers();
      await client.close();
    }
  });

  it('rejects bad time limits at construction', () => {
    const stdio = faultServer('fault-server.mjs', 'hang');
    expect(() => new McpClient('x', stdio, { timeoutMs: -1 })).toThrow(TypeError);
    expect(() => new McpClient('x', stdio, { connectTimeoutMs: 0 })).toThrow(TypeError);
    expect(() => new McpClient('', stdio)).toThrow(TypeError);
  });
});

describe('McpClient tool list cache', () => {
  const baseNames = [
    'echo',
    'crash',
    'hang',
    'flood',
    'env',
    'add-tool',
    'fail',
    'close-stdin',
    'steps',
    'media',
    'structured-image',
  ];

  it('lists every page once, serves the cache, and refreshTools() lists every page again', async () => {
    const logFile = join(dir.path, 'refresh.log');
    const client = new McpClient('pages', loggedFaultServer('paginated', logFile));
    try {
      await client.connect();
      const first = await client.listTools();
      expect(first.map((tool) => tool.name)).toEqual(baseNames);
      const pages = (await logLines(logFile)).filter((line) => line.startsWith('list'));
      expect(pages).toEqual(['list', 'list 2', 'list 4', 'list 6', 'list 8', 'list 10']);
      expect(await client.listTools()).toBe(first);
      expect((await logLines(logFile)).filter((line) => line.startsWith('list'))).toHaveLength(6);
      const refreshed = await client.refreshTools();
      expect(refreshed).not.toBe(first);
      expect(refreshed).toEqual(first);
      expect((await logLines(logFile)).filter((line) => line.startsWith('list'))).toHaveLength(12);
      expect(await client.listTools()).toBe(refreshed);
    } finally {
      await client.close();
    }
  });

  it('lists again after toolsTtlMs', async () => {
    const logFile = join(dir.path, 'ttl.log');
    const client = new McpClient('pages', loggedFaultServer('exit-mid-call', logFile), {
      toolsTtlMs: 2_000,
    });
    try {
      await client.connect();
      const first = await client.listTools();
      expect(await client.listTools()).toBe(first);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const later = await client.listTools();
      expect(later).not.toBe(first);
      expect((await logLines(logFile)).filter((line) => line === 'list')).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
