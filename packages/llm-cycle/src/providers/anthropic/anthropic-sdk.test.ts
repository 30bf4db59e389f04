/**
 * The cross-check of issue 22 §3: the official `@anthropic-ai/sdk`, offline against the local
 * Messages server, parses the same bytes to the same tool calls, text, thinking and usage as
 * the provider, whole and streamed, in whole reads and in 1–48-byte reads.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { choppedFetch, useMessagesServer } from '../../test-support/dialects/messages-fixture.js';
import { type MessagesReply, messagesBody, messagesStream } from '../../testing/index.js';
import { createAnthropicProvider } from './anthropic-provider.js';

const fixture = useMessagesServer();

const reply: MessagesReply = {
  thinking: 'Two cities: two calls, in parallel.',
  text: 'Checking both — ünïcödé included.',
  calls: [
    {
      id: 'toolu_01A',
      name: 'get_weather',
      input: { city: 'Zürich', units: 'metric' },
      pieces: ['', '{"city": "Z', 'ürich", "un', 'its": "metric"}'],
    },
    { id: 'toolu_01B', name: 'get_weather', input: { city: 'Paris' } },
  ],
  usage: { input: 40, output: 55, cacheRead: 1200, cacheWrite: 300 },
};

interface Seen {
  readonly text: string;
  readonly calls: readonly (readonly [string, string, unknown])[];
  readonly thinking: readonly unknown[];
  readonly stopReason: string;
  readonly usage: readonly number[];
}

function fromSdk(message: Anthropic.Message): Seen {
  const blocks = message.content;
  return {
    text: blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
    calls: blocks.flatMap((block) =>
      block.type === 'tool_use' ? [[block.id, block.name, block.input] as const] : [],
    ),
    thinking: blocks.filter((block) => block.type === 'thinking'),
    stopReason: message.stop_reason === 'tool_use' ? 'tool_calls' : String(message.stop_reason),
    usage: [
      message.usage.input_tokens,
      message.usage.output_tokens,
      message.usage.cache_read_input_tokens ?? 0,
      message.usage.cache_creation_input_tokens ?? 0,
    ],
  };
}

function fromProvider(response: ChatResponse): Seen {
  const usage = response.usage;
  const read = usage?.cacheReadTokens ?? 0;
  const write = usage?.cacheWriteTokens ?? 0;
  return {
    text: response.message.content ?? '',
    calls: (response.message.tool_calls ?? []).map(
      (call) => [call.id, call.function.name, JSON.parse(call.function.arguments)] as const,
    ),
    thinking: [...(response.message.provider_state?.items ?? [])],
    stopReason: response.finishReason,
    usage: [(usage?.promptTokens ?? 0) - read - write, usage?.completionTokens ?? 0, read, write],
  };
}

const params = {
  model: 'claude-haiku-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Weather in Zürich and Paris?' }],
};

describe.each([
  ['whole reads', undefined],
  ['1–48-byte reads, seed 3', 3],
  ['1–48-byte reads, seed 99', 99],
])('the official SDK and the provider read the same bytes alike (%s)', (_name, seed) => {
  const fetchFor = () => (seed === undefined ? globalThis.fetch : choppedFetch(seed));
  const sdk = () =>
    new Anthropic({
      apiKey: 'sk-ant-x',
      baseURL: fixture.server.baseURL,
      maxRetries: 0,
      fetch: fetchFor(),
    });
  const provider = () =>
    createAnthropicProvider({
      apiKey: 'sk-ant-x',
      baseURL: fixture.server.baseURL,
      fetch: fetchFor(),
    });

  it('not streamed', async () => {
    const body = messagesBody(reply);
    fixture.server.reply({ kind: 'json', body }, { kind: 'json', body });
    const theirs = fromSdk(await sdk().messages.create(params));
    const ours = fromProvider(
      await provider().chat({ model: params.model, messages: params.messages }),
    );
    expect(ours).toEqual(theirs);
    expect(theirs.calls).toHaveLength(2);
  });

  it('streamed', async () => {
    const writes = messagesStream(reply);
    fixture.server.reply({ kind: 'sse', writes }, { kind: 'sse', writes });
    const theirs = fromSdk(await sdk().messages.stream(params).finalMessage());
    let response: ChatResponse | undefined;
    const chunks: ChatChunk[] = [];
    for await (const chunk of provider().chatStream({
      model: params.model,
      messages: params.messages,
    })) {
      if (chunk.type === 'response') response = chunk.response;
      else chunks.push(chunk);
    }
    if (response === undefined) throw new Error('no response');
    expect(fromProvider(response)).toEqual(theirs);
    expect(theirs.thinking).toHaveLength(1);
  });
});
