import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { type FakeOpenAI, goodKey, knownModel, startFakeOpenAI } from './support/openai-server.js';

const noStack = /\n\s+at \S+ \(|node:internal/;
const dir = mkdtempSync(path.join(tmpdir(), 'agcore-playground-test-'));
function file(name: string, content: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, content);
  return target;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An environment reference as mcp.json writes it: `${env:NAME}`. */
const envReference = (name: string): string => `\${env:${name}}`;

describe('bad input: a clear message, a non-zero exit, never a stack trace', () => {
  it('an unknown flow', async () => {
    const result = await runCli(['--flow', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown flow 'nope'. Flows: tour, weather, parallel");
    expect(result.stderr).not.toMatch(noStack);
  });

  it('an unknown command: what exists, and --flow when the word is a flow', async () => {
    const unknown = await runCli(['foo']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command 'foo'. Commands: chat, tools, call, resume;");
    const typo = await runCli(['tool']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown command 'tool'. Did you mean 'tools'?");
    const flow = await runCli(['weather']);
    expect(flow.code).toBe(2);
    expect(flow.stderr).toContain("'weather' is a flow, not a command: run it with --flow weather");
    const chatJson = await runCli(['chat', '--json']);
    expect(chatJson.code).toBe(2);
    expect(chatJson.stderr).toContain('chat is interactive and has no --json output');
    for (const result of [unknown, typo, flow, chatJson]) {
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(noStack);
    }
  });

  it('an unknown option and a bad permission', async () => {
    const option = await runCli(['--flw', 'weather']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--flw'");
    const permission = await runCli(['--flow', 'weather', '--allow', 'everything']);
    expect(permission.code).toBe(2);
    expect(permission.stderr).toContain('--allow everything: not a permission');
  });

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

  it('a base URL without a model', async () => {
    const result = await runCli(['--base-url', 'http://127.0.0.1:9/v1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no model: pass --model NAME or set AGCORE_MODEL');
  });

  it('an empty --model or --base-url is refused, not sent to a server', async () => {
    for (const args of [
      ['--model', '', '--base-url', 'http://127.0.0.1:9/v1'],
      ['--base-url', ' ', '--model', 'gpt-4o-mini'],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--(model|base-url) is empty: give a value/);
      expect(result.stderr).not.toMatch(noStack);
    }
  });

  it('call and tools offer no model options, which they would ignore', async () => {
    for (const command of ['call', 'tools']) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--mcp-config');
      expect(help.stdout).not.toMatch(/--model|--base-url|--api-key|--scripted/);
    }
    const flowHelp = await runCli(['--help']);
    expect(flowHelp.stdout).toMatch(/--model <name>/);
  });

  it('a call that times out names the CLI flag that raises the limit', async () => {
    const result = await runCli(['call', 'slow_task', '{"seconds": 5}', '--timeout', '100']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('timeout:');
    expect(result.stderr).toContain(
      'hint: give it more time with --timeout MS (this call had 100 ms)',
    );
  });
});

describe('a base URL that is a web page, not the API', () => {
  it('says the answer was a web page and names --base-url', async () => {
    const page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><html><head><title>Welcome</title></head><body>Sign in</body></html>',
      );
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const { port } = page.address() as AddressInfo;
    try {
      const result = await runCli([
        '--flow',
        'weather',
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--model',
        'm',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `http://127.0.0.1:${port} answered with a web page (text/html), not the Chat Completions API.`,
      );
      expect(result.stderr).toContain(
        'Check --base-url (or OPENAI_BASE_URL): it should be the API root',
      );
      expect(result.stderr).toContain('<!doctype html>');
      expect(result.stderr).not.toMatch(noStack);
    } finally {
      page.closeAllConnections();
      await new Promise((resolve) => page.close(resolve));
    }
  });
});

describe('a real OpenAI-compatible endpoint (a local server speaking the wire format)', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs the flow on the endpoint with the same tools (flags)', async () => {
    const result = await runCli([
      '--flow',
      'weather',
      '--base-url',
      server.baseURL,
      '--api-key',
      goodKey,
      '--model',
      knownModel,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`model: ${knownModel} at ${server.baseURL}`);
    expect(result.stdout).not.toContain('ScriptedProvider');
    expect(result.stdout).toContain('thinking › The user wants the weather.');
    expect(result.stdout).toMatch(/→ get_weather \{"city":"Beijing"\} call_real_1/);
    expect(result.stdout).toMatch(/✓ get_weather \d+ ms \{"city":"Beijing","temperature":22/);
    expect(result.stdout).toContain('assistant › The tool says: {"city":"Beijing"');
    expect(result.stdout).toMatch(/│ tokens\s+│\s+303 │ 260 prompt \+ 43 completion\s+│/);
    const first = server.requests.at(-2)?.body as {
      model: string;
      stream: boolean;
      tools: Array<{ function: { name: string } }>;
    };
    expect(first.model).toBe(knownModel);
    expect(first.stream).toBe(true);
    expect(first.tools.map((tool) => tool.function.name)).toContain('get_weather');
    expect(result.stdout).not.toContain(goodKey);
  });

  it('a real model decides how a flow ends: a refusal flow that the model completes exits 0', async () => {
    // The local model calls get_weather and answers; it never tries run_shell.
    const result = await runCli([
      '--flow',
      'denied',
      '--base-url',
      server.baseURL,
      '--api-key',
      goodKey,
      '--model',
      knownModel,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✔ done');
    expect(result.stdout).toContain('you › Run `ls -la` in the sandbox');
  });

  it('chat on the endpoint: the prompt goes to the model with the tools', async () => {
    const result = await runCli(
      ['chat', '--base-url', server.baseURL, '--api-key', goodKey, '--model', knownModel],
      { input: 'what is the weather?\n/exit\n' },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`model: ${knownModel} at ${server.baseURL}`);
    expect(result.stdout).not.toContain('The scripted model understands');
    expect(result.stdout).toMatch(/✓ get_weather \d+ ms \{"city":"Beijing"/);
    expect(result.stdout).toContain('assistant › The tool says: ');
    const request = server.requests.at(-2)?.body as {
      messages: Array<{ role: string; content: string }>;
      tools: unknown[];
    };
    expect(request.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'what is the weather?',
    });
    // Built-in and MCP tools (both bundled servers run in chat).
    expect(request.tools.length).toBeGreaterThan(20);
  });

  it('takes the endpoint from OPENAI_BASE_URL / OPENAI_API_KEY / AGCORE_MODEL', async () => {
    const result = await runCli(['--flow', 'weather', '--json'], {
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: goodKey, AGCORE_MODEL: knownModel },
    });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toContain(`"model":"${knownModel}","scripted":false`);
  });

  it('an API key alone does not leave the scripted model', async () => {
    const result = await runCli(['--flow', 'weather'], {
      env: { OPENAI_API_KEY: 'sk-someone-elses' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('model: scripted');
  });

  it('a wrong API key (401): clear message, exit 1, the key never printed', async () => {
    const result = await runCli([
      '--flow',
      'weather',
      '--base-url',
      server.baseURL,
      '--api-key',
      'sk-wrong-key-999',
      '--model',
      knownModel,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${server.baseURL} refused the API key (HTTP 401). Check --api-key or OPENAI_API_KEY.`,
    );
    expect(result.stderr).toContain('Incorrect API key provided');
    expect(result.stdout + result.stderr).not.toContain('sk-wrong-key-999');
    expect(result.stderr).not.toMatch(noStack);
    // Nothing happened, so no empty history and no table of zeros around the message.
    expect(result.stdout).not.toContain('history');
    expect(result.stdout).not.toContain('summary');
  });

  it('an endpoint that accepts the connection and never answers: the idle limit ends the run, exit 1', async () => {
    // A server of its own: every attempt (the first and its 3 retries) hangs, and an attempt
    // aborted before it reached the server must not leave a hang queued for the next test.
    const silent = await startFakeOpenAI();
    silent.hang(4);
    const result = await runCli([
      '--flow',
      'weather',
      '--base-url',
      silent.baseURL,
      '--api-key',
      goodKey,
      '--model',
      knownModel,
      '--idle-timeout',
      '200',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('sent nothing for idleTimeoutMs (200 ms)');
    expect(result.stderr).toContain('--idle-timeout MS');
    expect(result.stderr).not.toMatch(noStack);
    expect(result.stdout + result.stderr).not.toContain(goodKey);
    await silent.close();
  });

  it('refuses an idle limit that is not a positive number', async () => {
    const result = await runCli([
      '--flow',
      'weather',
      '--base-url',
      server.baseURL,
      '--model',
      knownModel,
      '--idle-timeout',
      'soon',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--idle-timeout soon: give a positive number of milliseconds.');
  });

  it('a model that does not exist (404 model_not_found): clear message, exit 1', async () => {
    const result = await runCli([
      '--flow',
      'weather',
      '--base-url',
      server.baseURL,
      '--api-key',
      goodKey,
      '--model',
      'gpt-9-imaginary',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `The model 'gpt-9-imaginary' does not exist at ${server.baseURL}. Check --model or AGCORE_MODEL`,
    );
    expect(result.stderr).toContain('does not exist or you do not have access to it');
    expect(result.stderr).not.toMatch(noStack);
  });
});
