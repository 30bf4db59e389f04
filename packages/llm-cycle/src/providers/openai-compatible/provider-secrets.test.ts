/**
 * `createOpenAICompatibleProvider`: secrets (API key, credential headers) never reach an error.
 */
import { describe, expect, it } from 'vitest';
import type { LlmError } from '../../llm-error.js';
import { hiRequest, useProviderServer } from '../../test-support/provider-kit.js';
import { collectChunks, rejection } from '../../test-support/results.js';
import {
  completionChunk as chunk,
  completionId,
  errorBody,
  sseEvent as sse,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';

const apiKey = 'sk-test-SECRET-4f9a8b7c6d5e';
const wire = useProviderServer({ apiKey, headers: { 'x-app': 'agcore-test' } }, 'requests');
const request = hiRequest('gpt-4o-mini');

describe('createOpenAICompatibleProvider: secrets never reach an error', () => {
  const secret = 'sk-proj-LEAKCHECK-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP';

  function leakFree(error: LlmError, what: string): void {
    const cause = error.cause;
    const texts = [
      error.message,
      error.stack ?? '',
      error.responseBody ?? '',
      JSON.stringify(error),
      String(cause),
      cause instanceof Error ? `${cause.message} ${cause.stack ?? ''}` : '',
    ];
    for (const text of texts) {
      // Not the key, nor a long piece of it.
      expect(text, what).not.toContain(secret);
      expect(text, what).not.toContain(secret.slice(0, 24));
      expect(text, what).not.toContain(secret.slice(-24));
    }
  }

  it('takes the API key out of every error the server can provoke', async () => {
    const keyed = createOpenAICompatibleProvider({ baseURL: wire.server.baseURL, apiKey: secret });
    const id = completionId();
    const cases: [string, () => Promise<unknown>][] = [
      ['http 401 echoing the key', () => keyed.chat(request)],
      ['http 500 with the key across the 4 KiB cut', () => keyed.chat(request)],
      ['200 body that is not JSON', () => keyed.chat(request)],
      ['JSON without choices', () => keyed.chat(request)],
      ['error object in a 200 body', () => keyed.chat(request)],
      ['error event mid-stream', () => collectChunks(keyed.chatStream(request))],
      ['data line that is not JSON', () => collectChunks(keyed.chatStream(request))],
    ];
    wire.server.reply(
      {
        kind: 'json',
        status: 401,
        body: errorBody(`Incorrect API key provided: ${secret}.`, 'invalid_request_error', null),
      },
      { kind: 'text', status: 500, body: `${'x'.repeat(4096 - 30)}${secret}${'y'.repeat(50)}` },
      { kind: 'text', status: 200, body: `not json, key=${secret}` },
      { kind: 'json', body: { object: 'chat.completion', key: secret } },
      { kind: 'json', body: { error: { message: `Bad key ${secret}` } } },
      {
        kind: 'sse',
        writes: [
          sse(chunk(id, { role: 'assistant', content: 'x' })),
          sse({ error: { message: `quota exceeded for ${secret}`, type: 'server_error' } }),
        ],
      },
      { kind: 'sse', writes: [`data: {"oops": "${secret}"\n\n`] },
    );
    for (const [what, call] of cases) {
      const error = await rejection(call());
      leakFree(error, what);
      expect(`${error.message} ${error.responseBody ?? ''}`, what).toContain('[redacted]');
    }
  });

  it('takes credential header values (api-key, Authorization) out too', async () => {
    const azure = createOpenAICompatibleProvider({
      baseURL: wire.server.baseURL,
      headers: { 'api-key': secret },
    });
    const bearer = createOpenAICompatibleProvider({
      baseURL: wire.server.baseURL,
      headers: { Authorization: `Bearer ${secret}` },
    });
    wire.server.reply(
      { kind: 'json', status: 403, body: errorBody(`key ${secret} is disabled`, 'auth', null) },
      { kind: 'json', status: 403, body: errorBody(`token ${secret} is disabled`, 'auth', null) },
    );
    const first = await rejection(azure.chat(request));
    const second = await rejection(bearer.chat(request));
    expect(wire.server.requests[0]?.headers['api-key']).toBe(secret);
    expect(wire.server.requests[1]?.headers.authorization).toBe(`Bearer ${secret}`);
    leakFree(first, 'api-key header');
    leakFree(second, 'authorization header');
    expect([first.statusCode, second.statusCode]).toEqual([403, 403]);
  });
});
