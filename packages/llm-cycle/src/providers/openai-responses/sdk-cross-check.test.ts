/**
 * Cross-check with the official `openai` SDK, offline: the SDK's `client.responses.create`
 * (streamed and not) and this provider read the same bytes from the local Responses server, and
 * must find the same text, the same calls (call_id, name, arguments), the same reasoning and the
 * same usage (issue 22 §3).
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatRequest } from '../../chat-provider.js';
import { cutsOf, useResponsesServer } from '../../test-support/dialects/openai-responses.js';
import { collectChunks, finalResponse } from '../../test-support/results.js';
import {
  functionCallItem,
  messageItem,
  reasoningItem,
  responseEvents,
  responseObject,
  responsesUsage,
} from '../../testing/index.js';
import { createOpenAIResponsesProvider } from './openai-responses-provider.js';

const wire = useResponsesServer();
const request: ChatRequest = {
  model: 'gpt-5-mini',
  messages: [{ role: 'user', content: 'Weather in Oslo and Rome? ☃' }],
};
const body = responseObject({
  output: [
    reasoningItem('Two cities → two calls.'),
    messageItem('Checking both… ☃'),
    functionCallItem('get_weather', { city: 'Oslo' }, 'call_oslo'),
    functionCallItem('get_weather', { city: 'Rome', unit: 'c' }, 'call_rome'),
  ],
  usage: responsesUsage(321, 54, { cachedTokens: 256, reasoningTokens: 32 }),
});

/** What a reader of either kind found, in this package's terms. */
interface Found {
  readonly text: string;
  readonly reasoning: string;
  readonly calls: readonly {
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
  }[];
  readonly usage: readonly [number, number, number, number | undefined, number | undefined];
}

function sdkFound(response: OpenAI.Responses.Response, reasoning: string): Found {
  const calls = response.output.flatMap((item) =>
    item.type === 'function_call'
      ? [{ callId: item.call_id, name: item.name, arguments: item.arguments }]
      : [],
  );
  const usage = response.usage;
  return {
    // `output_text` is the SDK's own join, added to whole responses; a streamed one has the items.
    text:
      response.output_text ??
      response.output
        .flatMap((item) => (item.type === 'message' ? item.content : []))
        .map((part) => (part.type === 'output_text' ? part.text : ''))
        .join(''),
    reasoning,
    calls,
    usage: [
      usage?.input_tokens ?? -1,
      usage?.output_tokens ?? -1,
      usage?.total_tokens ?? -1,
      usage?.input_tokens_details.cached_tokens,
      usage?.output_tokens_details.reasoning_tokens,
    ],
  };
}

function ourFound(chunks: readonly ChatChunk[]): Found {
  const response = finalResponse(chunks);
  const usage = response.usage;
  return {
    text: response.message.content ?? '',
    reasoning:
      chunks.length > 1 ? deltas(chunks, 'assistant_reasoning_delta') : (response.reasoning ?? ''),
    calls: (response.message.tool_calls ?? []).map((call) => ({
      callId: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    })),
    usage: [
      usage?.promptTokens ?? -1,
      usage?.completionTokens ?? -1,
      usage?.totalTokens ?? -1,
      usage?.cacheReadTokens,
      usage?.reasoningTokens,
    ],
  };
}

function deltas(
  chunks: readonly ChatChunk[],
  type: 'assistant_reasoning_delta' | 'assistant_text_delta',
): string {
  return chunks.map((chunk) => (chunk.type === type ? chunk.text : '')).join('');
}

describe('the openai SDK and the Responses provider read the same bytes the same way', () => {
  it('a whole response (responses.create, not streamed)', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: wire.server.baseURL, maxRetries: 0 });
    wire.server.reset().reply({ kind: 'json', body }, { kind: 'json', body });
    const sdk = await client.responses.create({ model: request.model, input: 'Weather?' });
    const reasoning = sdk.output
      .flatMap((item) => (item.type === 'reasoning' ? item.summary.map((part) => part.text) : []))
      .join('');
    const ours = await createOpenAIResponsesProvider({ baseURL: wire.server.baseURL }).chat(
      request,
    );
    expect(ourFound([{ type: 'response', response: ours }])).toEqual(sdkFound(sdk, reasoning));
    expect(ours.message.provider_state?.items).toEqual(JSON.parse(JSON.stringify(sdk.output)));
  });

  it('a streamed response (responses.create with stream: true), in every cut of the reads', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: wire.server.baseURL, maxRetries: 0 });
    const provider = createOpenAIResponsesProvider({ baseURL: wire.server.baseURL });
    for (const writes of cutsOf(responseEvents(body, 4), 7)) {
      wire.server.reset().reply({ kind: 'sse', writes }, { kind: 'sse', writes });
      const stream = await client.responses.create({
        model: request.model,
        input: 'Weather?',
        stream: true,
      });
      let final: OpenAI.Responses.Response | undefined;
      let text = '';
      let reasoning = '';
      const args = new Map<number, string>();
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.reasoning_summary_text.delta') reasoning += event.delta;
        if (event.type === 'response.function_call_arguments.delta')
          args.set(event.output_index, (args.get(event.output_index) ?? '') + event.delta);
        if (event.type === 'response.completed') final = event.response;
      }
      if (final === undefined) throw new Error('the SDK saw no response.completed');
      const chunks = await collectChunks(provider.chatStream(request));
      const found = ourFound(chunks);
      expect(found).toEqual(sdkFound(final, reasoning));
      expect(deltas(chunks, 'assistant_text_delta')).toBe(text);
      expect(
        chunks.flatMap((chunk) =>
          chunk.type === 'tool_call_delta' && chunk.callId === undefined
            ? [chunk.argumentsDelta]
            : [],
        ),
      ).toEqual([...args.values()].flatMap((joined) => splitLike(joined, 4)));
    }
  });
});

/** The deltas `responseEvents` cuts a text into (the builder's own rule, for the comparison). */
function splitLike(text: string, pieces: number): string[] {
  const points = [...text];
  const size = Math.max(1, Math.ceil(points.length / pieces));
  const parts: string[] = [];
  for (let start = 0; start < points.length; start += size)
    parts.push(points.slice(start, start + size).join(''));
  return parts;
}
