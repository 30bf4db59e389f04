import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolError } from '@agcore/tools-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpToolError, type McpToolInfo } from '../index.js';
import {
  failure,
  faultServer,
  isAlive,
  loggedFaultServer,
  logLines,
  tempDir,
} from '../test-support/servers.js';

describe('McpClient start-up failures', () => {
  it('reports a missing command as mcp_error at once, naming the server', async () => {
    const client = new McpClient(
      'ghost',
      { type: 'stdio', command: 'agcore-no-such-command-4711' },
      // Far beyond the test's own limit: only an immediate failure passes.
      { connectTimeoutMs: 600_000 },
    );
    const error = await failure(client.connect());
    expect(error.code).toBe('mcp_error');
    expect(error.serverName).toBe('ghost');
    expect(error.message).toMatch(/'ghost'/);
    expect(error.message).toMatch(/ENOENT/);
    expect(client.isConnected).toBe(false);
  });

  it('reports a server that exits during start-up with its exit code and stderr', async () => {
    const client = new McpClient('broken', faultServer('fault-server.mjs', 'startup-exit'), {
      connectTimeoutMs: 600_000,
    });
    const error = await failure(client.connect());
    expect(error.code).toBe('mcp_error');
    expect(error.exitCode).toBe(7);
    expect(error.message).toMatch(/exited with code 7/);
    expect(error.message).toMatch(/config\.toml not found/);
    expect(error.stderr).toMatch(/config\.toml not found/);
  });

  it('gives mcp_timeout for a server that never answers initialize, and stops it', async () => {
    const client = new McpClient('mute', faultServer('fault-server.mjs', 'no-initialize'), {
      connectTimeoutMs: 3_000,
      closeGraceMs: 300,
    });
    const error = await failure(client.connect());
    expect(error.code).toBe('mcp_timeout');
    expect(error.message).toMatch(/'mute'/);
    expect(error.message).toMatch(/will never answer/);
  });
});

describe('McpClient when the server dies mid-call', () => {
  it('rejects every pending call with mcp_error naming the server and exit code, then fails fast', async () => {
    const errors: Error[] = [];
    const client = new McpClient('crashy', faultServer('fault-server.mjs', 'exit-mid-call'), {
      // Far beyond the test's own limit: the calls must fail because the server died.
      timeoutMs: 600_000,
      onError: (error) => errors.push(error),
    });
    await client.connect();
    const pending = [client.callTool('hang'), client.callTool('hang'), client.callTool('crash')];
    const results = await Promise.allSettled(pending);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as McpToolError;
      expect(error.code).toBe('mcp_error');
      expect(error.serverName).toBe('crashy');
      expect(error.exitCode).toBe(3);
      expect(error.message).toMatch(/'crashy'.*exited with code 3/);
      expect(error.message).toMatch(/panic: simulated crash/);
    }
    expect(client.isConnected).toBe(false);
    const later = await failure(client.callTool('echo', { message: 'x' }));
    expect(later.code).toBe('mcp_error');
    expect(later.message).toMatch(/unavailable/);
    expect(later.message).toMatch(/reconnect\(\)/);
    await client.reconnect();
    expect((await client.callTool('echo', { message: 'back' })).value).toBe('back');
    await client.close();
  });

  it('names the signal when the server is killed mid-call', async () => {
    const client = new McpClient('killed', faultServer('fault-server.mjs', 'exit-mid-call'), {
      timeoutMs: 600_000,
    });
    await client.connect();
    const pending = client.callTool('hang');
    process.kill(client.pid ?? 0, 'SIGKILL');
    const error = await failure(pending);
    expect(error.code).toBe('mcp_error');
    expect(error.signal).toBe('SIGKILL');
    expect(error.exitCode).toBeNull();
    expect(error.message).toMatch(/'killed'.*killed by signal SIGKILL/);
    await client.close();
  });

  it('rejects pending calls even when a grandchild keeps the server stdout open', async () => {
    const dir = await tempDir('grandchild');
    const logFile = join(dir.path, 'log');
    const client = new McpClient('parent', loggedFaultServer('grandchild', logFile), {
      timeoutMs: 600_000,
    });
    try {
      await client.connect();
      const error = await failure(client.callTool('crash'));
      expect(error.code).toBe('mcp_error');
      expect(error.exitCode).toBe(3);
      expect(client.isConnected).toBe(false);
    } finally {
      await client.close();
      const line = (await logLines(logFile)).find((entry) => entry.startsWith('grandchild '));
      const pid = Number(line?.split(' ')[1]);
      if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
      await dir.remove();
    }
  });

  it('drains a chatty stderr (the server never blocks) and keeps only a bounded tail', async () => {
    const client = new McpClient('chatty', faultServer('fault-server.mjs', 'chatty'), {
      timeoutMs: 600_000,
      stderrLimitBytes: 1_000,
    });
    await client.connect();
    expect((await client.callTool('echo', { message: 'heard' })).value).toBe('heard');
    const error = await failure(client.callTool('crash'));
    expect(error.code).toBe('mcp_error');
    expect(error.stderr?.length).toBeLessThanOrEqual(1_000);
    expect(error.stderr).toMatch(/chatter[\s\S]*panic: simulated crash/);
    expect(error.message.length).toBeLessThan(3_000);
    await client.close();
  });

  it('fails fast, and does not crash the host, when the server closes its stdin (EPIPE)', async () => {
    const errors: Error[] = [];
    const client = new McpClient('deaf', faultServer('fault-server.mjs', 'exit-mid-call'), {
      timeoutMs: 600_000,
      closeGraceMs: 300,
      onError: (error) => errors.push(error),
    });
    try {
      await client.connect();
      expect((await client.callTool('close-stdin')).value).toBe('closing stdin');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The first write after that hits a closed pipe: the call must fail now, not in 10 minutes.
      const error = await failure(client.callTool('echo', { message: 'anyone?' }));
      expect(error.code).toBe('mcp_error');
      expect(error.message).toMatch(/'deaf'/);
      expect(error.message).toMatch(/EPIPE|stdin/);
      expect(client.isConnected).toBe(false);
      expect((await failure(client.callTool('echo', { message: 'x' }))).message).toMatch(
        /unavailable/,
      );
      await client.reconnect();
      expect((await client.callTool('echo', { message: 'back' })).value).toBe('back');
    } finally {
      await client.close();
    }
  });

  it('reconnects by itself when asked to, without replaying the call that was in flight', async () => {
    const dir = await tempDir('reconnect');
    const logFile = join(dir.path, 'calls.log');
    const client = new McpClient(
      'phoenix',
      { ...faultServer('fault-server.mjs', 'exit-mid-call'), env: { FAULT_LOG: logFile } },
      { timeoutMs: 20_000, autoReconnect: { initialDelayMs: 50 } },
    );
    try {
      await client.connect();
      const firstPid = client.pid;
      const error = await failure(client.callTool('crash'));
      expect(error.code).toBe('mcp_error');
      // Made while reconnecting: waits for the new server, then runs.
      expect((await client.callTool('echo', { message: 'again' })).value).toBe('again');
      expect(client.pid).not.toBe(firstPid);
      const log = (await readFile(logFile, 'utf8')).trim().split('\n');
      expect(log.filter((line) => line.startsWith('start'))).toHaveLength(2);
      expect(log.filter((line) => line === 'call crash')).toHaveLength(1);
    } finally {
      await client.close();
      await dir.remove();
    }
  });
});

describe('McpClient against misbehaving servers', () => {
  it('gives mcp_timeout for a call the server never answers, and closes cleanly', async () => {
    // A generous client timeout for start-up on a loaded machine; the call gets a short one.
    const client = new McpClient('sleepy', faultServer('fault-server.mjs', 'hang'), {
      timeoutMs: 20_000,
    });
    await client.connect();
    const error = await failure(client.callTool('echo', { message: 'x' }, { timeoutMs: 500 }));
    expect(error.code).toBe('mcp_timeout');
    expect(error.toolName).toBe('echo');
    await client.close();
  });

  it('survives garbage, non-JSON lines and a 10 MB line on stdout', async () => {
    const errors: Error[] = [];
    const client = new McpClient('noisy', faultServer('fault-server.mjs', 'garbage'), {
      timeoutMs: 20_000,
      onError: (error) => errors.push(error),
    });
    await client.connect();
    expect((await client.callTool('echo', { message: 'one' })).value).toBe('one');
    expect((await client.callTool('echo', { message: 'two' })).value).toBe('two');
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect((error as ToolError).code).toBe('mcp_error');
    expect(client.isConnected).toBe(true);
    await client.close();
  });

  it('stops a server whose line exceeds maxMessageBytes and says why', async () => {
    const client = new McpClient('flooder', faultServer('fault-server.mjs', 'exit-mid-call'), {
      timeoutMs: 20_000,
    });
    await client.connect();
    const error = await failure(client.callTool('flood'));
    expect(error.code).toBe('mcp_error');
    expect(error.message).toMatch(/'flooder'/);
    expect(error.message).toMatch(/maximum size/);
    expect(client.isConnected).toBe(false);
    await client.close();
  });

  it('kills a server that ignores SIGTERM on close', async () => {
    const client = new McpClient('stubborn', faultServer('fault-server.mjs', 'ignore-sigterm'), {
      closeGraceMs: 300,
    });
    await client.connect();
    const pid = client.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    await client.close();
    expect(isAlive(pid)).toBe(false);
  });

  it('follows nextCursor through every page, and again after list_changed', async () => {
    const changes: (readonly McpToolInfo[])[] = [];
    const client = new McpClient('pages', faultServer('fault-server.mjs', 'paginated'), {
      onToolsChanged: (tools) => changes.push(tools),
    });
    await client.connect();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
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
    ]);
    await client.callTool('add-tool');
    await expect.poll(() => changes.length, { timeout: 10_000 }).toBe(1);
    // The new tool is on the last page: only a re-list of every page finds it.
    expect(changes[0]?.map((tool) => tool.name)).toContain('added-1');
    expect(changes[0]).toHaveLength(12);
    expect(await client.listTools()).toHaveLength(12);
    await client.close();
  });

  it('reports isError results as recoverable execution_failed with the server text', async () => {
    const client = new McpClient('failing', faultServer('fault-server.mjs', 'exit-mid-call'));
    await client.connect();
    const error = await failure(client.callTool('fail'));
    expect(error.code).toBe('execution_failed');
    expect(error.isRecoverable()).toBe(true);
    expect(error.message).toMatch(/disk quota exceeded/);
    await client.close();
  });
});

describe('McpClient environment', () => {
  const secret = 'AGCORE_TEST_SECRET_API_KEY';
  beforeAll(() => {
    process.env[secret] = 'sk-should-never-leak';
  });
  afterAll(() => {
    delete process.env[secret];
  });

  it('gives a stdio server only the safe default environment plus what the caller passes', async () => {
    const client = new McpClient('env', {
      ...faultServer('fault-server.mjs', 'echo-env'),
      env: { GREETING: 'hello' },
    });
    await client.connect();
    const env = JSON.parse(String((await client.callTool('env')).value)) as Record<string, string>;
    expect(env.GREETING).toBe('hello');
    expect(env[secret]).toBeUndefined();
    expect(env.PATH).toBe(process.env.PATH);
    await client.close();
  });
});
