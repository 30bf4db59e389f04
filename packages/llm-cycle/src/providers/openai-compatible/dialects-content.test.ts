/**
 * The Chat Completions dialects of real servers, at the provider level: streamed and not, whole
 * and cut into small reads. Each test names the server whose habit it reproduces.
 *
 * This file: reasoning, and content as an array of parts.
 */
import { describe, expect, it } from 'vitest';
import { hiRequest, streamEachCut, useProviderServer } from '../../test-support/provider-kit.js';
import { finalResponse } from '../../test-support/results.js';
import { completionChunk, sseDone, sseEvent } from '../../testing/index.js';

const wire = useProviderServer({ apiKey: 'sk-dialects' }, 'reset');
const request = hiRequest('m');

describe('reasoning', () => {
  it('reads reasoning_content (DeepSeek, Qwen, Moonshot) and reasoning (vLLM >= 0.11, OpenRouter, Ollama)', async () => {
    for (const field of ['reasoning_content', 'reasoning']) {
      const id = `chatcmpl-${field}`;
      const events = [
        sseEvent(completionChunk(id, { role: 'assistant', content: null, [field]: 'Let me ' })),
        sseEvent(completionChunk(id, { content: null, [field]: 'think.' })),
        sseEvent(completionChunk(id, { content: 'Paris.', [field]: null })),
        sseEvent(completionChunk(id, {}, 'stop')),
        sseDone,
      ];
      for (const chunks of await streamEachCut(wire, request, events)) {
        const response = finalResponse(chunks);
        expect(response.reasoning).toBe('Let me think.');
        expect(response.message.reasoning_content).toBe('Let me think.');
        expect(response.message.content).toBe('Paris.');
        const reasoning = chunks.filter((chunk) => chunk.type === 'assistant_reasoning_delta');
        expect(reasoning.map((chunk) => chunk.text).join('')).toBe('Let me think.');
      }
    }
  });

  it('reads reasoning from a non-streamed answer', async () => {
    wire.server.reply({
      kind: 'json',
      body: {
        id: 'chatcmpl-r',
        object: 'chat.completion',
        model: 'deepseek-reasoner',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '42', reasoning_content: 'Six times seven.' },
            finish_reason: 'stop',
          },
        ],
      },
    });
    const response = await wire.provider.chat(request);
    expect(response.reasoning).toBe('Six times seven.');
    expect(response.message.reasoning_content).toBe('Six times seven.');
  });
});

describe('content as an array of parts (Mistral reasoning models)', () => {
  const parts = [
    { type: 'thinking', thinking: [{ type: 'text', text: 'The user greets me.' }] },
    { type: 'text', text: 'Hello' },
    { type: 'text', text: ' there!' },
  ];

  it('joins text parts into the text and maps thinking parts to reasoning (non-streamed)', async () => {
    wire.server.reply({
      kind: 'json',
      body: {
        id: 'mistral-1',
        object: 'chat.completion',
        model: 'magistral-medium-latest',
        choices: [
          { index: 0, message: { role: 'assistant', content: parts }, finish_reason: 'stop' },
        ],
      },
    });
    const response = await wire.provider.chat(request);
    expect(response.message.content).toBe('Hello there!');
    expect(response.reasoning).toBe('The user greets me.');
  });

  it('does the same for streamed deltas', async () => {
    const id = 'mistral-2';
    const events = parts.map((part) => sseEvent(completionChunk(id, { content: [part] })));
    events.push(sseEvent(completionChunk(id, { content: '' }, 'stop')), sseDone);
    for (const chunks of await streamEachCut(wire, request, events)) {
      const response = finalResponse(chunks);
      expect(response.message.content).toBe('Hello there!');
      expect(response.reasoning).toBe('The user greets me.');
    }
  });
});
