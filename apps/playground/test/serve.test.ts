// Issue 21 §3: `serve` puts the playground's built-in tools (its registry, its policy) behind
// serveTools; an McpClient, and another playground through --mcp-config, reach them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpClient, type McpToolError } from '@agcore/tools-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCli, startCli, waitFor } from './support/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agcore-playground-serve-'));
const serving = startCli(['serve', '--port', '0', '--no-color']);
const output = collect(serving);
let url = '';

beforeAll(async () => {
  await waitFor(output.output, (text) => /http:\/\/127\.0\.0\.1:\d+\/mcp/.test(text));
  url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(output.output())?.[0] ?? '';
}, 60_000);

afterAll(async () => {
  serving.kill('SIGKILL');
  await output;
  rmSync(dir, { recursive: true, force: true });
});

describe('playground serve', () => {
  it('serves the built-in tools: an McpClient lists and calls them, the policy refuses run_shell', async () => {
    const client = new McpClient('playground', { type: 'streamable-http', url });
    await client.connect();
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['calculator', 'get_weather', 'run_shell']));
    const result = await client.callTool('calculator', { expression: '(22 + 14) / 2' });
    expect(result.value).toEqual({ expression: '(22 + 14) / 2', result: 18 });
    const refused = (await client
      .callTool('run_shell', { command: 'echo hi' })
      .catch((error: unknown) => error)) as McpToolError;
    expect(refused.code).toBe('permission_denied');
    await client.close();
  }, 30_000);

  it('is reached by another playground through --mcp-config', async () => {
    const config = path.join(dir, 'mcp.json');
    // The served tools carry annotations from their permissions; trusting them lets the calling
    // playground's policy decide on the same permissions (read for get_weather).
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { remote: { url, trustAnnotations: true } } }),
    );
    const call = await runCli([
      'call',
      'remote__get_weather',
      '{"city": "Paris"}',
      '--mcp-config',
      config,
      '--json',
    ]);
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    expect(call.stdout).toMatch(/"city":"Paris"/);
    // calculator declares no permissions, so it is served without annotations: the calling
    // playground counts it as write + delete, which its default policy refuses.
    const undeclared = await runCli([
      'call',
      'remote__calculator',
      '{"expression": "2 + 3"}',
      '--mcp-config',
      config,
      '--json',
    ]);
    expect(undeclared.code).not.toBe(0);
    expect(undeclared.stdout).toMatch(/permission_denied/);
  }, 60_000);

  it('stops on SIGINT with exit code 0', async () => {
    serving.kill('SIGINT');
    const { code } = await output;
    expect(code).toBe(0);
  }, 30_000);
});
