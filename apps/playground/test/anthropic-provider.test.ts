import {
  type MessagesServer,
  messagesStream,
  type ServerReply,
  startMessagesServer,
} from '@agcore/llm-cycle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('--provider anthropic (a local server speaking Messages)', () => {
  let server: MessagesServer;
  beforeAll(async () => {
    server = await startMessagesServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs the weather flow over Messages with ANTHROPIC_API_KEY, thinking shown and sent back', async () => {
    const call: ServerReply = {
      kind: 'sse',
      writes: messagesStream({
        thinking: 'The user wants the weather.',
        calls: [{ id: 'toolu_real_1', name: 'get_weather', input: { city: 'Beijing' } }],
        usage: { input: 200, output: 30, cacheRead: 1500 },
      }),
    };
    server.reply(call, {
      kind: 'sse',
      writes: messagesStream({ text: 'It is 22 °C in Beijing.' }),
    });
    const result = await runCli(
      [
        '--flow',
        'weather',
        '--provider',
        'anthropic',
        '--base-url',
        server.baseURL,
        '--model',
        'claude-haiku-4-5',
      ],
      { env: { ANTHROPIC_API_KEY: 'sk-ant-playground-secret' } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`model: claude-haiku-4-5 at ${server.baseURL} (anthropic)`);
    expect(result.stdout).toContain('thinking › The user wants the weather.');
    expect(result.stdout).toMatch(/→ get_weather \{"city":"Beijing"\} toolu_real_1/);
    expect(result.stdout).toContain('assistant › It is 22 °C in Beijing.');
    expect(result.stdout).not.toContain('sk-ant-playground-secret');
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant-playground-secret');
    // The server refuses a second turn whose thinking block did not come back exactly.
    const second = server.requests[1]?.body as { messages: { content: { type: string }[] }[] };
    expect(second.messages[1]?.content[0]?.type).toBe('thinking');
  });
});
