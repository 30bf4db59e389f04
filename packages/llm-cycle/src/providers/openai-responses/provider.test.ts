/**
 * `createOpenAIResponsesProvider` against the local Responses server: the request it writes,
 * the answer it reads (whole and streamed, in every cut), and what it keeps for the next turn.
 */
import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatRequest } from '../../chat-provider.js';
import type { ChatMessage } from '../../messages.js';
import { cutsOf, useResponsesServer } from '../../test-support/dialects/openai-responses.js';
import { collectChunks, finalResponse } from '../../test-support/results.js';
import {
  functionCallItem,
  messageItem,
  reasoningItem,
  responseEvents,
  responseObject,
  responsesUsage,
  startResponsesServer,
} from '../../testing/index.js';
import { createOpenAIResponsesProvider } from './openai-responses-provider.js';

const wire = useResponsesServer();
// biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON bodies the server received
const sent = (index: number): any => wire.server.requests[index]?.body;
const provider = () =>
  createOpenAIResponsesProvider({ baseURL: wire.server.baseURL, apiKey: 'sk-test-123456' });
const weather = {
  type: 'function' as const,
  function: {
    name: 'weather',
    description: 'The weather in a city.',
    parameters: { type: 'object' as const, properties: { city: { type: 'string' as const } } },
  },
};
const request: ChatRequest = {
  model: 'gpt-5-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Oslo and Rome?' },
  ],
  tools: [weather],
};

describe('createOpenAIResponsesProvider: the request', () => {
  it('posts /v1/responses with instructions, input items, tools, store false and encrypted reasoning', async () => {
    wire.server
      .reset()
      .reply({ kind: 'json', body: responseObject({ output: [messageItem('Hi.')] }) });
    await provider().chat(request);
    const received = wire.server.requests[0];
    expect(received?.url).toBe('/v1/responses');
    expect(received?.headers.authorization).toBe('Bearer sk-test-123456');
    expect(sent(0)).toEqual({
      model: 'gpt-5-mini',
      instructions: 'Be brief.',
      input: [{ type: 'message', role: 'user', content: 'Weather in Oslo and Rome?' }],
      store: false,
      include: ['reasoning.encrypted_content'],
      tools: [
        {
          type: 'function',
          name: 'weather',
          description: 'The weather in a city.',
          parameters: weather.function.parameters,
        },
      ],
    });
  });

  it('sends the whole history back: reasoning items exactly, function calls and their outputs', async () => {
    const reasoning = reasoningItem('Two cities: two calls.', 'gAAAAB-opaque==');
    const first = responseObject({
      output: [
        reasoning,
        functionCallItem('weather', { city: 'Oslo' }, 'call_1'),
        functionCallItem('weather', { city: 'Rome' }, 'call_2'),
      ],
    });
    wire.server
      .reset()
      .reply(
        { kind: 'json', body: first },
        { kind: 'json', body: responseObject({ output: [messageItem('Cold, warm.')] }) },
      );
    const model = provider();
    const answer = await model.chat(request);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.message.tool_calls?.map((call) => [call.id, call.function.arguments])).toEqual([
      ['call_1', '{"city":"Oslo"}'],
      ['call_2', '{"city":"Rome"}'],
    ]);
    const history: ChatMessage[] = [
      ...request.messages,
      // Through JSON, as a RunState or a cassette carries it.
      JSON.parse(JSON.stringify(answer.message)),
      { role: 'tool', tool_call_id: 'call_1', content: '-3 °C' },
      { role: 'tool', tool_call_id: 'call_2', content: '24 °C' },
    ];
    const second = await model.chat({ ...request, messages: history });
    expect(second.message.content).toBe('Cold, warm.');
    expect(sent(1).input).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Oslo and Rome?' },
      ...(first.output as unknown[]),
      { type: 'function_call_output', call_id: 'call_1', output: '-3 °C' },
      { type: 'function_call_output', call_id: 'call_2', output: '24 °C' },
    ]);
  });

  it('rebuilds an edited message from its fields, keeping its reasoning items', async () => {
    const reasoning = reasoningItem('Think.', 'gAAAAB-kept==');
    wire.server.reset().reply(
      {
        kind: 'json',
        body: responseObject({ output: [reasoning, messageItem('Long answer.')] }),
      },
      { kind: 'json', body: responseObject({ output: [messageItem('ok')] }) },
    );
    const model = provider();
    const answer = await model.chat(request);
    const edited = { ...answer.message, content: 'Short.' };
    await model.chat({
      ...request,
      messages: [...request.messages, edited, { role: 'user', content: 'More?' }],
    });
    expect(sent(1).input.slice(1, 3)).toEqual([
      reasoning,
      { type: 'message', role: 'assistant', content: 'Short.' },
    ]);
  });

  it('with previousResponseId and store: true, sends only what follows the last response', async () => {
    const first = responseObject({
      id: 'resp_first',
      store: true,
      output: [functionCallItem('weather', { city: 'Oslo' }, 'call_9')],
    });
    wire.server
      .reset()
      .reply(
        { kind: 'json', body: first },
        { kind: 'json', body: responseObject({ output: [messageItem('Cold.')] }) },
      );
    const model = createOpenAIResponsesProvider({
      baseURL: wire.server.baseURL,
      store: true,
      previousResponseId: true,
    });
    const answer = await model.chat(request);
    await model.chat({
      ...request,
      messages: [
        ...request.messages,
        answer.message,
        { role: 'tool', tool_call_id: 'call_9', content: '-3 °C' },
      ],
    });
    expect(sent(0).store).toBe(true);
    expect(sent(0).include).toBeUndefined();
    expect(sent(1)).toMatchObject({
      previous_response_id: 'resp_first',
      instructions: 'Be brief.',
      input: [{ type: 'function_call_output', call_id: 'call_9', output: '-3 °C' }],
    });
    expect(() => createOpenAIResponsesProvider({ previousResponseId: true })).toThrow(RangeError);
  });
});

describe('createOpenAIResponsesProvider: the answer', () => {
  const output = [
    reasoningItem('Look both up.'),
    messageItem('Checking…'),
    functionCallItem('weather', { city: 'Oslo' }, 'call_a'),
    functionCallItem('weather', { city: 'Rome' }, 'call_b'),
  ];
  const usage = responsesUsage(120, 40, { cachedTokens: 64, reasoningTokens: 16 });
  const whole = responseObject({ output, usage });

  it('reads a whole answer: text, calls, reasoning, usage with cached and reasoning tokens', async () => {
    wire.server.reset().reply({ kind: 'json', body: whole });
    const answer = await provider().chat(request);
    expect(answer).toMatchObject({
      id: whole.id,
      finishReason: 'tool_calls',
      reasoning: 'Look both up.',
      usage: {
        promptTokens: 120,
        completionTokens: 40,
        totalTokens: 160,
        cacheReadTokens: 64,
        reasoningTokens: 16,
      },
      message: {
        content: 'Checking…',
        provider_state: { provider: 'openai-responses', items: output },
      },
    });
  });

  it('streams the same answer in every cut: whole, per event, random 1–48-byte reads', async () => {
    const model = provider();
    const expected = await (async () => {
      wire.server.reset().reply({ kind: 'json', body: whole });
      return model.chat(request);
    })();
    for (const writes of cutsOf(responseEvents(whole))) {
      wire.server.reset().reply({ kind: 'sse', writes });
      const chunks = await collectChunks(model.chatStream(request));
      expect(finalResponse(chunks)).toEqual(expected);
      expect(joined(chunks)).toEqual({
        reasoning: 'Look both up.',
        text: 'Checking…',
        calls: [
          { callId: 'call_a', toolName: 'weather', arguments: '{"city":"Oslo"}' },
          { callId: 'call_b', toolName: 'weather', arguments: '{"city":"Rome"}' },
        ],
      });
    }
  });

  it('keeps one connection for a conversation: each stream is read to its end and handed back', async () => {
    const server = await startResponsesServer();
    try {
      const model = createOpenAIResponsesProvider({ baseURL: server.baseURL });
      for (let turn = 0; turn < 3; turn++) {
        server.reply({ kind: 'sse', writes: responseEvents(whole) }, { kind: 'json', body: whole });
        await collectChunks(model.chatStream(request));
        await model.chat(request);
      }
      expect(server.requests).toHaveLength(6);
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('maps incomplete answers to length and content_filter', async () => {
    for (const [reason, finish] of [
      ['max_output_tokens', 'length'],
      ['content_filter', 'content_filter'],
    ] as const) {
      const cut = responseObject({
        status: 'incomplete',
        incompleteReason: reason,
        output: [messageItem('Half')],
      });
      wire.server
        .reset()
        .reply({ kind: 'json', body: cut }, { kind: 'sse', writes: responseEvents(cut) });
      expect((await provider().chat(request)).finishReason).toBe(finish);
      expect(finalResponse(await collectChunks(provider().chatStream(request))).finishReason).toBe(
        finish,
      );
    }
  });

  it('fills the answer from output_item.done when the terminal event has no output', async () => {
    const events = responseEvents(responseObject({ output }));
    const terminal = JSON.parse(events[events.length - 1]?.split('data: ')[1] ?? '{}');
    terminal.response.output = [];
    events[events.length - 1] = `event: response.completed\ndata: ${JSON.stringify(terminal)}\n\n`;
    wire.server.reset().reply({ kind: 'sse', writes: events });
    const answer = finalResponse(await collectChunks(provider().chatStream(request)));
    expect(answer.message.tool_calls?.map((call) => call.id)).toEqual(['call_a', 'call_b']);
    expect(answer.message.provider_state?.items).toEqual(output);
  });
});

/** What the deltas of a stream add up to. */
function joined(chunks: readonly ChatChunk[]) {
  let reasoning = '';
  let text = '';
  const calls: { callId?: string; toolName?: string; arguments: string }[] = [];
  for (const chunk of chunks) {
    if (chunk.type === 'assistant_reasoning_delta') reasoning += chunk.text;
    if (chunk.type === 'assistant_text_delta') text += chunk.text;
    if (chunk.type === 'tool_call_delta') {
      const call = calls[chunk.index] ?? { arguments: '' };
      calls[chunk.index] = call;
      if (chunk.callId !== undefined) call.callId = chunk.callId;
      if (chunk.toolName !== undefined) call.toolName = chunk.toolName;
      call.arguments += chunk.argumentsDelta;
    }
  }
  return { reasoning, text, calls };
}
