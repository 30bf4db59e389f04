/**
 * Issue 29 §4: the official `@google/genai` SDK (3.x) and `createGeminiProvider` read the same
 * bytes of the local Gemini server to the same result: the text, the thoughts, the function
 * calls (name, arguments, id) and the usage, whole and streamed.
 */
import { type GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import {
  type GeminiReply,
  type GeminiServer,
  geminiBody,
  geminiStream,
  startGeminiServer,
} from '../../testing/index.js';
import { createGeminiProvider } from './gemini-provider.js';

let server: GeminiServer;
beforeAll(async () => {
  server = await startGeminiServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const replies: readonly (readonly [string, GeminiReply])[] = [
  ['text', { text: 'Paris is at 22 °C.', usage: { promptTokenCount: 9, candidatesTokenCount: 7 } }],
  [
    'parallel calls with thoughts and cache',
    {
      thought: 'Two cities.',
      calls: [
        { name: 'get_weather', args: { city: 'Paris' }, id: 'fc_1' },
        { name: 'get_weather', args: { city: 'Oslo', unit: 'C' }, id: 'fc_2' },
      ],
      usage: {
        promptTokenCount: 40,
        candidatesTokenCount: 10,
        thoughtsTokenCount: 25,
        cachedContentTokenCount: 32,
      },
    },
  ],
];

/** What both readers must agree on. */
interface Reading {
  readonly text: string;
  readonly thoughts: string;
  readonly calls: readonly { name: string; args: unknown; id: string | undefined }[];
  readonly usage: readonly (number | undefined)[];
}

function fromSdk(responses: readonly GenerateContentResponse[]): Reading {
  let text = '';
  let thoughts = '';
  const calls: Reading['calls'][number][] = [];
  for (const response of responses) {
    for (const part of response.candidates?.[0]?.content?.parts ?? []) {
      if (typeof part.text === 'string') {
        if (part.thought === true) thoughts += part.text;
        else text += part.text;
      }
      if (part.functionCall !== undefined)
        calls.push({
          name: part.functionCall.name ?? '',
          args: part.functionCall.args,
          id: part.functionCall.id,
        });
    }
  }
  const usage = responses[responses.length - 1]?.usageMetadata;
  return {
    text,
    thoughts,
    calls,
    usage: [
      usage?.promptTokenCount,
      (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
      usage?.totalTokenCount,
      usage?.cachedContentTokenCount,
      usage?.thoughtsTokenCount,
    ],
  };
}

function fromProvider(response: ChatResponse): Reading {
  const usage = response.usage;
  return {
    text: response.message.content ?? '',
    thoughts: response.reasoning ?? '',
    calls: (response.message.tool_calls ?? []).map((call) => ({
      name: call.function.name,
      args: JSON.parse(call.function.arguments),
      id: call.id,
    })),
    usage: [
      usage?.promptTokens,
      usage?.completionTokens,
      usage?.totalTokens,
      usage?.cacheReadTokens,
      usage?.reasoningTokens,
    ],
  };
}

const sdk = () =>
  new GoogleGenAI({
    apiKey: 'AIza-test-key',
    httpOptions: { baseUrl: server.baseURL.replace(/\/v1beta$/, ''), apiVersion: 'v1beta' },
  });
const provider = () => createGeminiProvider({ apiKey: 'AIza-test-key', baseURL: server.baseURL });
const contents = [{ role: 'user', parts: [{ text: 'Weather?' }] }];
const request = {
  model: 'gemini-3-pro-preview',
  messages: [{ role: 'user' as const, content: 'Weather?' }],
};

describe.each(replies)('the SDK and the provider on %s', (_name, reply) => {
  it('read the same whole answer', async () => {
    const body = geminiBody(reply);
    server.reply({ kind: 'json', body }, { kind: 'json', body });
    const theirs = await sdk().models.generateContent({ model: request.model, contents });
    const ours = await provider().chat(request);
    expect(server.requests.map((received) => received.url)).toEqual([
      '/v1beta/models/gemini-3-pro-preview:generateContent',
      '/v1beta/models/gemini-3-pro-preview:generateContent',
    ]);
    expect(fromProvider(ours)).toEqual(fromSdk([theirs]));
  });

  it('read the same stream', async () => {
    const writes = geminiStream(reply, reply.text?.match(/.{1,5}/gs) ?? undefined);
    server.reply({ kind: 'sse', writes }, { kind: 'sse', writes });
    const theirs: GenerateContentResponse[] = [];
    for await (const chunk of await sdk().models.generateContentStream({
      model: request.model,
      contents,
    }))
      theirs.push(chunk);
    const chunks: ChatChunk[] = [];
    for await (const chunk of provider().chatStream(request)) chunks.push(chunk);
    const last = chunks[chunks.length - 1];
    if (last?.type !== 'response') throw new Error('no response chunk');
    expect(server.requests[1]?.url).toBe(server.requests[0]?.url);
    expect(fromProvider(last.response)).toEqual(fromSdk(theirs));
  });
});
