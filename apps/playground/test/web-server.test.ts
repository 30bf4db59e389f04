import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, type WebProcess } from './support/browser.js';
import { type FakeOpenAI, goodKey, knownModel, startFakeOpenAI } from './support/openai-server.js';

/** One raw request (fetch cannot send a foreign Host header). */
function raw(
  url: URL,
  options: { path: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

describe('playground web: the server (no browser)', () => {
  let web: WebProcess;
  let url: URL;
  let token: string;

  beforeAll(async () => {
    web = await startWeb();
    url = new URL(web.url);
    token = url.searchParams.get('token') ?? '';
  });
  afterAll(async () => {
    await web?.stop();
  });

  it('prints a loopback URL with a long random token', () => {
    expect(url.hostname).toBe('127.0.0.1');
    expect(token).toMatch(/^[\w-]{32}$/);
  });

  it('refuses every path without the token or with a wrong one (401), serves them with it', async () => {
    for (const path of ['/', '/app.js', '/timeline.js', '/style.css', '/events', '/api/state']) {
      expect((await raw(url, { path })).status, path).toBe(401);
      expect((await raw(url, { path: `${path}?token=${token}x` })).status, path).toBe(401);
    }
    for (const path of ['/', '/app.js', '/timeline.js', '/style.css', '/api/state']) {
      expect((await raw(url, { path: `${path}?token=${token}` })).status, path).toBe(200);
    }
    const post = await raw(url, {
      path: '/api/run',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"flow":"weather"}',
    });
    expect(post.status).toBe(401);
  });

  it('refuses a foreign Host even with the token (DNS rebinding)', async () => {
    const answer = await raw(url, {
      path: `/?token=${token}`,
      headers: { host: `attacker.example:${url.port}` },
    });
    expect(answer.status).toBe(403);
  });

  it('hostile POST bodies get a JSON error with a status, and the server stays up', async () => {
    const post = (body: string, type = 'application/json') =>
      raw(url, {
        path: `/api/run?token=${token}`,
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
    expect((await post('{"flow":"weather"}', 'text/plain')).status).toBe(415);
    expect((await post('not json')).status).toBe(400);
    expect((await post('[1,2]')).status).toBe(400);
    expect((await post('x'.repeat(70 * 1024))).status).toBe(413);
    const unknown = await post('{"flow":"nope"}');
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body).error).toContain("Unknown flow 'nope'");
    // The durable flow runs in worker processes over Postgres: the terminal's only.
    const durable = await post('{"flow":"durable"}');
    expect(durable.status).toBe(400);
    expect(JSON.parse(durable.body).error).toContain("Unknown flow 'durable'");
    const decide = await raw(url, {
      path: `/api/decide?token=${token}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"runId":"none","callId":"call_1","decision":{"kind":"approve"}}',
    });
    expect(decide.status).toBe(409);
    expect((await raw(url, { path: `/api/state?token=${token}` })).status).toBe(200);
  });

  it('the new routes: the MCP view without --mcp-config, hostile policy and call bodies', async () => {
    const send = (path: string, body: unknown) =>
      raw(url, {
        path: `${path}?token=${token}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const path of ['/policy.js', '/mcp.js']) {
      expect((await raw(url, { path })).status, path).toBe(401);
      expect((await raw(url, { path: `${path}?token=${token}` })).status, path).toBe(200);
    }
    expect((await raw(url, { path: '/api/mcp' })).status).toBe(401);
    const mcp = await raw(url, { path: `/api/mcp?token=${token}` });
    expect(mcp.status).toBe(409);
    expect(JSON.parse(mcp.body).error).toContain('--mcp-config');
    const call = await send('/api/mcp/call', { tool: 'run_shell', arguments: { command: 'id' } });
    expect(call.status).toBe(409);
    expect((await send('/api/mcp/call', { arguments: {} })).status).toBe(400);

    const hostile: unknown[] = [
      {},
      { allowed: ['read'], denied: [], allowUnspecified: 'true' },
      { allowed: ['READ'], denied: [], allowUnspecified: true },
      { allowed: [{ toString: 'read' }], denied: [], allowUnspecified: true },
      {
        allowed: Array.from({ length: 65 }, (_, index) => `custom:p${index}`),
        denied: [],
        allowUnspecified: true,
      },
      { allowed: ['shell'], denied: ['shell'], allowUnspecified: true },
    ];
    for (const body of hostile) {
      const answer = await send('/api/policy', body);
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(typeof JSON.parse(answer.body).error).toBe('string');
    }
    const state = JSON.parse((await raw(url, { path: `/api/state?token=${token}` })).body);
    // Nothing of it was applied: the launch's policy is still in force.
    expect(state.policy).toMatch(/^allow read, network · deny delete, shell/);
    expect(state.mcp).toBe(false);
  });
});

describe('playground web: the chat route (no browser)', () => {
  let web: WebProcess;
  let url: URL;
  let token: string;
  const post = (path: string, body: string, type = 'application/json', withToken = true) =>
    raw(url, {
      path: withToken ? `${path}?token=${token}` : path,
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
  const state = async () =>
    JSON.parse((await raw(url, { path: `/api/state?token=${token}` })).body) as {
      run: { runId: string; status: string; waiting: { toolName: string }[] } | null;
    };

  beforeAll(async () => {
    web = await startWeb();
    url = new URL(web.url);
    token = url.searchParams.get('token') ?? '';
  });
  afterAll(async () => {
    await web?.stop();
  });

  it('refuses /api/chat and /api/chat/new without the token (401)', async () => {
    const message = JSON.stringify({ message: 'weather in Paris' });
    expect((await post('/api/chat', message, 'application/json', false)).status).toBe(401);
    expect((await post('/api/chat/new', '{}', 'application/json', false)).status).toBe(401);
    expect((await state()).run).toBeNull();
  });

  it('refuses hostile chat bodies with a status and a reason, and starts nothing', async () => {
    const refusals: [string, string, number, string][] = [
      ['{"message":"hi"}', 'text/plain', 415, 'application/json'],
      ['not json', 'application/json', 400, 'not JSON'],
      ['["hi"]', 'application/json', 400, 'JSON object'],
      ['{}', 'application/json', 400, '{ message: string }'],
      ['{"message":42}', 'application/json', 400, '{ message: string }'],
      ['{"message":["hi"]}', 'application/json', 400, '{ message: string }'],
      ['{"message":"   \\n "}', 'application/json', 400, 'empty'],
      [JSON.stringify({ message: 'x'.repeat(16_001) }), 'application/json', 400, 'at most 16000'],
      [JSON.stringify({ message: 'x'.repeat(70 * 1024) }), 'application/json', 413, '64 KB'],
    ];
    for (const [body, type, status, reason] of refusals) {
      const answer = await post('/api/chat', body, type);
      expect(answer.status, body.slice(0, 40)).toBe(status);
      expect(JSON.parse(answer.body).error, body.slice(0, 40)).toContain(reason);
    }
    expect((await state()).run).toBeNull();
  });

  it('a message runs; another one while it waits is refused (409), as is a new conversation', async () => {
    const first = await post('/api/chat', JSON.stringify({ message: 'transfer 9000 to Bob' }));
    expect(first.status).toBe(200);
    const { runId } = JSON.parse(first.body) as { runId: string };
    await expect
      .poll(async () => (await state()).run?.waiting.map((call) => call.toolName), {
        timeout: 30_000,
      })
      .toEqual(['transfer_money']);
    const second = await post('/api/chat', JSON.stringify({ message: 'weather in Paris' }));
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body).error).toContain('in progress');
    expect((await post('/api/chat/new', '{}')).status).toBe(409);
    const saved = await post('/api/save', JSON.stringify({ runId }));
    expect(saved.status).toBe(409);
    expect(JSON.parse(saved.body).error).toContain('cannot be saved');
    expect((await state()).run?.runId).toBe(runId);

    expect((await post('/api/cancel', JSON.stringify({ runId }))).status).toBe(200);
    await expect
      .poll(async () => (await state()).run?.status, { timeout: 30_000 })
      .toBe('finished');
    expect((await post('/api/chat/new', '{}')).status).toBe(200);
  });
});

describe('playground web: the chat on a real endpoint (--base-url/--model)', () => {
  let fake: FakeOpenAI;
  let web: WebProcess;
  let url: URL;
  let token: string;
  const post = (path: string, body: object) =>
    raw(url, {
      path: `${path}?token=${token}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const status = async () =>
    (
      JSON.parse((await raw(url, { path: `/api/state?token=${token}` })).body) as {
        run: { status: string } | null;
      }
    ).run?.status;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    web = await startWeb(['--base-url', fake.baseURL, '--api-key', goodKey, '--model', knownModel]);
    url = new URL(web.url);
    token = url.searchParams.get('token') ?? '';
  });
  afterAll(async () => {
    await web?.stop();
    await fake?.close();
  });

  it('each message goes to the endpoint with the whole conversation before it', async () => {
    const messagesOf = (index: number) =>
      (fake.requests[index]?.body as { messages?: { role: string; content: unknown }[] })
        ?.messages ?? [];
    expect((await post('/api/chat', { message: 'How is the weather in Beijing?' })).status).toBe(
      200,
    );
    await expect.poll(status, { timeout: 30_000 }).toBe('finished');
    // One message: the tool-call turn and the answer after the tool result.
    expect(fake.requests).toHaveLength(2);
    expect((await post('/api/chat', { message: 'And tomorrow?' })).status).toBe(200);
    await expect.poll(status, { timeout: 30_000 }).toBe('finished');
    expect(fake.requests).toHaveLength(4);
    const third = messagesOf(2);
    expect(third.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(third[1]?.content).toBe('How is the weather in Beijing?');
    expect(third[5]?.content).toBe('And tomorrow?');
    expect(fake.requests.every((request) => request.authorization === `Bearer ${goodKey}`)).toBe(
      true,
    );
  });
});

/** The records of the event stream until one matches `done` (or 30 s pass). */
function recordsUntil(
  url: URL,
  token: string,
  done: (record: { type: string; runId?: string }) => boolean,
): Promise<{ type: string; runId?: string; [key: string]: unknown }[]> {
  return new Promise((resolve, reject) => {
    const records: { type: string; runId?: string }[] = [];
    const sent = request(
      { host: url.hostname, port: url.port, path: `/events?token=${token}` },
      (response) => {
        let buffer = '';
        const timer = setTimeout(() => {
          response.destroy();
          reject(new Error(`no matching record: ${JSON.stringify(records).slice(-400)}`));
        }, 30_000);
        response.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const data = buffer.slice(0, end).match(/^data: (.*)$/m)?.[1];
            buffer = buffer.slice(end + 2);
            if (data === undefined) continue;
            const record = JSON.parse(data) as { type: string; runId?: string };
            records.push(record);
            if (done(record)) {
              clearTimeout(timer);
              response.destroy();
              resolve(records);
              return;
            }
          }
        });
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

describe('playground web: a chat whose servers cannot start', () => {
  let folder: string;
  let web: WebProcess;
  let url: URL;
  let token: string;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'agcore-web-chat-'));
    const config = path.join(folder, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { broken: { command: path.join(folder, 'no-such-server') } } }),
    );
    web = await startWeb(['--mcp-config', config]);
    url = new URL(web.url);
    token = url.searchParams.get('token') ?? '';
  });
  afterAll(async () => {
    await web?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  it('the message ends failed with the reason, and the next message tries again', async () => {
    for (const message of ['weather in Paris', 'calculate 1 + 1']) {
      const answer = await raw(url, {
        path: `/api/chat?token=${token}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });
      expect(answer.status).toBe(200);
      const { runId } = JSON.parse(answer.body) as { runId: string };
      const records = await recordsUntil(
        url,
        token,
        (record) => record.type === 'run_finished' && record.runId === runId,
      );
      const finished = records.at(-1) as
        | { outcome?: string; failure?: { message: string } }
        | undefined;
      expect(finished?.outcome).toBe('failed');
      expect(finished?.failure?.message).toContain('broken');
      expect(
        records.filter((record) => record.runId === runId).map((record) => record.type),
      ).toEqual(['run_started', 'run_finished']);
    }
  });
});
