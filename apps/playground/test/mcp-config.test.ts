import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { noStack, runCli } from './support/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agcore-playground-test-'));
function file(name: string, content: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, content);
  return target;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An environment reference as mcp.json writes it: `${env:NAME}`. */
const envReference = (name: string): string => `\${env:${name}}`;

describe('mcp.json: bad input gets a clear message and a non-zero exit, never a stack trace; good input adds its servers', () => {
  it('a malformed mcp.json: not JSON, wrong shape, missing file', async () => {
    const notJson = await runCli(['tools', '--mcp-config', file('bad.json', '{"mcpServers": {')]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/The MCP config .*bad\.json is not valid JSON/);
    const shape = await runCli([
      'tools',
      '--mcp-config',
      file('shape.json', '{"mcpServers": {"x": {"args": ["a"]}}}'),
    ]);
    expect(shape.code).toBe(2);
    expect(shape.stderr).toMatch(
      /The MCP config .*shape\.json is malformed: server 'x': needs either "command" \(a local server\) or "url"/,
    );
    const missing = await runCli(['tools', '--mcp-config', path.join(dir, 'missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
    const directory = await runCli(['--flow', 'weather', '--mcp-config', dir]);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain(`Cannot read the MCP config ${dir}: it is a directory`);
    // Reported before the flow prints anything.
    expect(directory.stdout).toBe('');
    for (const result of [notJson, shape, missing, directory]) {
      expect(result.stderr).not.toMatch(noStack);
    }
  });

  it('an MCP server that does not start (exits at once, or its command is missing)', async () => {
    const config = file(
      'broken.json',
      JSON.stringify({
        mcpServers: {
          crashing: {
            command: process.execPath,
            args: ['-e', "console.error('boom: no database configured'); process.exit(3)"],
          },
          missing: { command: '/nonexistent/mcp-server-binary' },
        },
      }),
    );
    const result = await runCli(['--flow', 'weather', '--mcp-config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('2 MCP servers did not start');
    expect(result.stderr).toContain('crashing');
    expect(result.stderr).toContain('boom: no database configured');
    expect(result.stderr).toContain('missing');
    expect(result.stderr).not.toMatch(noStack);
  });

  it('a working mcp.json adds its servers (here server-everything under another name)', async () => {
    const { createRequire } = await import('node:module');
    const entry = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    const config = file(
      'good.json',
      JSON.stringify({
        mcpServers: { demo: { command: process.execPath, args: [entry, 'stdio'] } },
      }),
    );
    const result = await runCli([
      'call',
      'demo__get-sum',
      '{"a": 2, "b": 3}',
      '--mcp-config',
      config,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The sum of 2 and 3 is 5.');
  });

  it('mcp.json: env references are expanded; a server named like a bundled one is left out', async () => {
    const { createRequire } = await import('node:module');
    const entry = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    const config = file(
      'env.json',
      JSON.stringify({
        mcpServers: {
          everything: { command: '/nonexistent/mcp-server-binary' },
          demo: {
            command: process.execPath,
            args: [entry, envReference('PLAYGROUND_DEMO_TRANSPORT')],
          },
        },
      }),
    );
    const result = await runCli(
      ['call', 'demo__echo', '{"message": "hi"}', '--mcp-config', config],
      {
        env: { PLAYGROUND_DEMO_TRANSPORT: 'stdio' },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Echo: hi');
    const unset = await runCli(['tools', '--mcp-config', config], {
      env: { PLAYGROUND_DEMO_TRANSPORT: undefined },
    });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(
      'server \'demo\': "args" refers to the environment variable PLAYGROUND_DEMO_TRANSPORT, which is not set',
    );
    expect(unset.stderr).not.toMatch(noStack);
  });
});
