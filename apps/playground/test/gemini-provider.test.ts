import {
  type GeminiServer,
  geminiSignature,
  geminiStream,
  type ServerReply,
  startGeminiServer,
} from '@agcore/llm-cycle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('--provider gemini (a local server speaking the Gemini API)', () => {
  let server: GeminiServer;
  beforeAll(async () => {
    server = await startGeminiServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs the weather flow over Gemini with GEMINI_API_KEY, thoughts shown and the signature sent back', async () => {
    const weather = { id: 'fc_real_1', name: 'get_weather', args: { city: 'Beijing' } };
    const call: ServerReply = {
      kind: 'sse',
      writes: geminiStream({ thought: 'The user wants the weather.', calls: [weather] }),
    };
    server.reply(call, { kind: 'sse', writes: geminiStream({ text: 'It is 22 °C in Beijing.' }) });
    const result = await runCli(
      [
        '--flow',
        'weather',
        '--provider',
        'gemini',
        '--base-url',
        server.baseURL,
        '--model',
        'gemini-3-flash-preview',
      ],
      { env: { GEMINI_API_KEY: 'AIza-playground-secret' } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`model: gemini-3-flash-preview at ${server.baseURL} (gemini)`);
    expect(result.stdout).toContain('thinking › The user wants the weather.');
    expect(result.stdout).toMatch(/→ get_weather \{"city":"Beijing"\} fc_real_1/);
    expect(result.stdout).toContain('assistant › It is 22 °C in Beijing.');
    expect(result.stdout).not.toContain('AIza-playground-secret');
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('AIza-playground-secret');
    // The server refuses a second turn whose thought signature did not come back.
    const second = server.requests[1]?.body as {
      contents: { parts: { thoughtSignature?: string; functionCall?: unknown }[] }[];
    };
    const sent = second.contents[1]?.parts.find((part) => part.functionCall !== undefined);
    expect(sent?.thoughtSignature).toBe(geminiSignature(weather));
  });
});
