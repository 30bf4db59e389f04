import {
  functionCallItem,
  messageItem,
  type ResponsesServer,
  reasoningItem,
  responseEvents,
  responseObject,
  startResponsesServer,
} from '@agcore/llm-cycle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('--provider openai-responses (a local server speaking Responses)', () => {
  let server: ResponsesServer;
  beforeAll(async () => {
    server = await startResponsesServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs the weather flow over Responses with OPENAI_API_KEY, the reasoning item sent back', async () => {
    const reasoning = reasoningItem('The user wants the weather.');
    server.reply(
      {
        kind: 'sse',
        writes: responseEvents(
          responseObject({
            output: [reasoning, functionCallItem('get_weather', { city: 'Beijing' }, 'call_r1')],
          }),
        ),
      },
      {
        kind: 'sse',
        writes: responseEvents(
          responseObject({ output: [messageItem('It is 22 °C in Beijing.')] }),
        ),
      },
    );
    const result = await runCli(
      [
        '--flow',
        'weather',
        '--provider',
        'openai-responses',
        '--base-url',
        server.baseURL,
        '--model',
        'gpt-5-mini',
      ],
      { env: { OPENAI_API_KEY: 'sk-responses-playground-secret' } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`model: gpt-5-mini at ${server.baseURL} (openai-responses)`);
    expect(result.stdout).toMatch(/→ get_weather \{"city":"Beijing"\} call_r1/);
    expect(result.stdout).toContain('assistant › It is 22 °C in Beijing.');
    expect(result.stdout).not.toContain('sk-responses-playground-secret');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-responses-playground-secret');
    expect(server.requests[0]?.url).toMatch(/\/responses$/);
    // The reasoning item goes back exactly, before the function call it came with.
    const second = server.requests[1]?.body as { input: unknown[] };
    expect(second.input).toContainEqual(reasoning);
  });
});
