import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServers, parseMcpServersConfig } from '../index.js';
import { faultServer, serverEntries, tempDir } from '../test-support/servers.js';

describe('McpServers', () => {
  it('connects a standard mcpServers file in parallel, reports failures and keeps the others', async () => {
    const dir = await tempDir('servers');
    const hang = faultServer('fault-server.mjs', 'no-initialize');
    const config = {
      mcpServers: {
        everything: { command: process.execPath, args: [serverEntries.everything, 'stdio'] },
        files: { command: process.execPath, args: [serverEntries.filesystem, dir.path] },
        missing: { command: 'agcore-no-such-command-4711' },
        mute: { command: hang.command, args: hang.args },
        off: { command: 'whatever', disabled: true },
      },
    };
    const file = join(dir.path, 'mcp.json');
    await writeFile(file, JSON.stringify(config));
    // The limit must outlast two real servers starting while turbo runs every suite on two
    // cores (3 s did not, in a loaded run); the mute server is what waits for it.
    const servers = await McpServers.fromFile(file, {
      connectTimeoutMs: 10_000,
      client: { closeGraceMs: 300 },
    });
    try {
      expect(servers.names).toEqual(['everything', 'files', 'missing', 'mute']);
      const result = await servers.connect();
      expect(result.connected).toEqual(['everything', 'files']);
      const failures = new Map(result.failed.map((failure) => [failure.name, failure.error]));
      expect(failures.get('missing')?.code).toBe('mcp_error');
      expect(failures.get('missing')?.message).toMatch(/'missing'.*ENOENT/);
      expect(failures.get('mute')?.code).toBe('mcp_timeout');
      const tools = await servers.tools();
      const names = tools.map((tool) => tool.name);
      expect(names).toContain('everything__echo');
      expect(names).toContain('files__read_text_file');
      expect(new Set(names).size).toBe(names.length);
      expect((await servers.get('everything')?.callTool('echo', { message: 'hi' }))?.value).toBe(
        'Echo: hi',
      );
    } finally {
      await servers.close();
      await dir.remove();
    }
  });

  it('gives the tools of the living servers and reports one that died since it connected', async () => {
    const crashy = faultServer('fault-server.mjs', 'exit-mid-call');
    const reported: Error[] = [];
    const servers = new McpServers(
      {
        mcpServers: {
          everything: { command: process.execPath, args: [serverEntries.everything, 'stdio'] },
          crashy: { command: crashy.command, args: crashy.args },
          ghost: { command: 'agcore-no-such-command-4711' },
        },
      },
      { client: { onError: (error) => reported.push(error) } },
    );
    try {
      const { connected, failed } = await servers.connect();
      expect(connected).toEqual(['everything', 'crashy']);
      expect(failed.map((failure) => failure.name)).toEqual(['ghost']);
      const crashyClient = servers.get('crashy');
      process.kill(crashyClient?.pid ?? 0, 'SIGKILL');
      await expect.poll(() => crashyClient?.isConnected, { timeout: 20_000 }).toBe(false);
      const collected = await servers.collectTools();
      expect(collected.tools.some((tool) => tool.name === 'everything__echo')).toBe(true);
      expect(collected.tools.some((tool) => tool.serverName === 'crashy')).toBe(false);
      expect(collected.failed.map((failure) => failure.name)).toEqual(['crashy']);
      expect(collected.failed[0]?.error.code).toBe('mcp_error');
      expect(collected.failed[0]?.error.message).toMatch(/'crashy'.*SIGKILL/);
      const tools = await servers.tools();
      expect(tools.map((tool) => tool.name)).toEqual(collected.tools.map((tool) => tool.name));
      expect(reported.some((error) => /'crashy'/.test(error.message))).toBe(true);
    } finally {
      await servers.close();
    }
  });

  it('applies per-server filters and permissions from the file', async () => {
    const servers = new McpServers({
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [serverEntries.everything, 'stdio'],
          allowedTools: ['echo', 'get-sum'],
          permissions: { echo: ['custom:demo'] },
        },
      },
    });
    try {
      await servers.connect();
      const tools = await servers.tools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'everything__echo',
        'everything__get-sum',
      ]);
      expect(tools.find((tool) => tool.mcpName === 'echo')?.requiredPermissions).toEqual([
        'custom:demo',
      ]);
    } finally {
      await servers.close();
    }
  });
});

/** A `${name}` placeholder as config files write it. */
const v = (name: string): string => `\${${name}}`;

describe('parseMcpServersConfig', () => {
  it('reads stdio and HTTP entries, VS Code servers key, and expands env references', () => {
    const entries = parseMcpServersConfig(
      {
        servers: {
          local: {
            command: 'node',
            args: ['server.js', v('env:ROOT')],
            env: { API_KEY: v('KEY') },
          },
          remote: {
            url: 'https://example.test/mcp',
            headers: { Authorization: `Bearer ${v('KEY')}` },
            timeoutMs: 5000,
          },
          legacy: { type: 'sse', url: 'https://example.test/sse' },
          fallback: { command: 'node', args: [v('MISSING:-default')] },
        },
      },
      { ROOT: '/srv', KEY: 'k-1' },
    );
    expect(entries.map((entry) => entry.transport)).toEqual([
      { type: 'stdio', command: 'node', args: ['server.js', '/srv'], env: { API_KEY: 'k-1' } },
      {
        type: 'streamable-http',
        url: 'https://example.test/mcp',
        headers: { Authorization: 'Bearer k-1' },
      },
      { type: 'sse', url: 'https://example.test/sse' },
      { type: 'stdio', command: 'node', args: ['default'] },
    ]);
    expect(entries[1]?.timeoutMs).toBe(5000);
  });

  it('rejects invalid entries with a message naming the server', () => {
    expect(() => parseMcpServersConfig({ mcpServers: { bad: { args: [] } } }, {})).toThrow(
      /'bad'.*command.*url/,
    );
    expect(() =>
      parseMcpServersConfig({ mcpServers: { bad: { command: 'x', env: { A: v('NOPE') } } } }, {}),
    ).toThrow(/NOPE/);
    expect(() =>
      parseMcpServersConfig({ mcpServers: { bad: { command: 'x', permissions: ['root'] } } }, {}),
    ).toThrow(/permissions/);
    expect(() =>
      parseMcpServersConfig({ mcpServers: { bad: { command: 'x', permissions: [] } } }, {}),
    ).toThrow(/at least one permission/);
    expect(() =>
      parseMcpServersConfig({ mcpServers: { bad: { command: 'x', permissions: { t: [] } } } }, {}),
    ).toThrow(/permissions\.t/);
    expect(() => parseMcpServersConfig([], {})).toThrow(/JSON object/);
  });

  it('refuses two servers whose prefixes collide', () => {
    expect(
      () => new McpServers({ mcpServers: { 'a.b': { command: 'x' }, a_b: { command: 'y' } } }),
    ).toThrow(/a_b/);
  });
});
