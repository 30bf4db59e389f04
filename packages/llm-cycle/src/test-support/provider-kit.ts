/**
 * Shared parts of the provider-level tests: the wire-format server with a provider made fresh
 * before each test, and a one-message request.
 */
import { beforeEach } from 'vitest';
import type { ChatChunk, ChatProvider, ChatRequest } from '../chat-provider.js';
import {
  createOpenAICompatibleProvider,
  type OpenAICompatibleProviderOptions,
} from '../providers/openai-compatible/openai-compatible-provider.js';
import { type ChatServerFixture, useChatServer } from './chat-server.js';
import { collectChunks } from './results.js';

/** The server of a provider test file and the provider of the current test. */
export interface ProviderFixture extends ChatServerFixture {
  /** A provider on the server, made fresh before each test. */
  readonly provider: ChatProvider;
}

/**
 * Starts the server for the file. Before each test: forgets the requests received
 * (`fresh: 'requests'`) or resets the whole server, pending replies included (`'reset'`), then
 * makes a provider on it with `options`.
 */
export function useProviderServer(
  options: Omit<OpenAICompatibleProviderOptions, 'baseURL'>,
  fresh: 'requests' | 'reset',
): ProviderFixture {
  const fixture = useChatServer();
  let provider: ChatProvider | undefined;
  beforeEach(() => {
    if (fresh === 'reset') fixture.server.reset();
    else fixture.server.requests.length = 0;
    provider = createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL, ...options });
  });
  return {
    get server() {
      return fixture.server;
    },
    sent: fixture.sent,
    get provider() {
      if (provider === undefined) throw new Error('the provider is made in beforeEach');
      return provider;
    },
  };
}

/** A request of one user message, `Hi`, to `model`. */
export function hiRequest(model: string) {
  return { model, messages: [{ role: 'user' as const, content: 'Hi' }] };
}

/** Every way to cut SSE `events` the tests use: whole, one event per write, and 7-byte writes. */
function cuts(events: readonly string[]): (string | Uint8Array)[][] {
  const whole = events.join('');
  const bytes = new TextEncoder().encode(whole);
  const small: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += 7)
    small.push(bytes.subarray(start, start + 7));
  return [[whole], [...events], small];
}

/** Streams `events` in each cut of `cuts`, and resolves to the chunks of each run. */
export async function streamEachCut(
  wire: ProviderFixture,
  request: ChatRequest,
  events: readonly string[],
): Promise<ChatChunk[][]> {
  const runs: ChatChunk[][] = [];
  for (const writes of cuts(events)) {
    wire.server.reply({ kind: 'sse', writes });
    runs.push(await collectChunks(wire.provider.chatStream(request)));
  }
  return runs;
}
