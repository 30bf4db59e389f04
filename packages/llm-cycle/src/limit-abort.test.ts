/**
 * A limit that runs out before the response headers ends the HTTP request itself, not only the
 * promise: the connection is closed, so no request outlives its limit on the server (holding a
 * socket, or taking a reply scripted for a later request), and retries do not pile up open
 * requests. Each test has a server of its own that hangs on every request and counts the
 * requests the client abandoned (their connection closed before the reply was complete).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, ChatProvider } from './chat-provider.js';
import { LlmCycle } from './llm-cycle.js';
import { LlmError } from './llm-error.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import { type ChatCompletionsServer, startChatCompletionsServer } from './testing/index.js';

let server: ChatCompletionsServer;

beforeEach(async () => {
  server = await startChatCompletionsServer();
  server.fallback({ kind: 'hang' });
});
afterEach(async () => {
  await server.close();
});

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };

function provider(options: Record<string, unknown>): ChatProvider {
  return createOpenAICompatibleProvider({ baseURL: server.baseURL, ...options });
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

async function drain(stream: AsyncIterable<ChatChunk>): Promise<void> {
  for await (const _chunk of stream) {
    // nothing
  }
}

/**
 * Resolves once the server saw `count` requests abandoned by the client, or after `boundMs`
 * (a generous bound: without an abort, Node's `fetch` holds the connection of a request that
 * got no headers for 300 s).
 */
async function abandoned(count: number, boundMs = 5_000): Promise<number> {
  const until = Date.now() + boundMs;
  while (server.disconnects() < count && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return server.disconnects();
}

describe('a limit that runs out before the headers ends the request', () => {
  it('timeoutMs, not streamed: the connection is closed', async () => {
    const error = await failure(provider({ timeoutMs: 100 }).chat(request));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timeoutMs (100 ms');
    expect(await abandoned(1)).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('idleTimeoutMs, streamed: the connection is closed', async () => {
    const error = await failure(drain(provider({ idleTimeoutMs: 100 }).chatStream(request)));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('idleTimeoutMs (100 ms)');
    expect(await abandoned(1)).toBe(1);
  });

  it('retries after a timeout leave no request open behind them', async () => {
    const cycle = new LlmCycle({
      provider: provider({ idleTimeoutMs: 100 }),
      model: 'm',
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 1 },
    });
    const error = await failure(cycle.submit('Hello?'));
    expect(error.code).toBe('timeout');
    expect(server.requests).toHaveLength(3);
    expect(await abandoned(3)).toBe(3);
  });

  it("the caller's abort before the headers closes the connection too", async () => {
    const controller = new AbortController();
    const answer = failure(provider({}).chat(request, { signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect((await answer).code).toBe('cancelled');
    expect(await abandoned(1)).toBe(1);
  });
});
