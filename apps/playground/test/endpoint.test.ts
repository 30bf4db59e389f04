import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noStack, runCli } from './support/cli.js';
import { type FakeOpenAI, goodKey, knownModel, startFakeOpenAI } from './support/openai-server.js';

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
