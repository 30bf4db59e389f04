// Verifies the harness itself: the scripted server speaks the Chat Completions wire format
// (JSON and SSE), refuses requests that skip work, and the bare loop completes the script.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareLoop, bareStreamLoop, toChatTools } from './bare-loop.mjs';
import { startChatServer } from './chat-server.mjs';
import {
  LOOP_ANSWER_DELTAS,
  LOOP_TURNS,
  loopAnswer,
  loopToolImplementations,
  loopToolSchemas,
  PROMPT,
} from './scenario.mjs';

let server;
beforeAll(async () => {
  server = await startChatServer();
});
afterAll(async () => {
  await server?.close();
});

const implementation = (name) => loopToolImplementations[name];

function post(body) {
  return fetch(`${server.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const firstRequest = {
  model: 'loop',
  messages: [{ role: 'user', content: PROMPT }],
  tools: toChatTools(loopToolSchemas),
};

describe('scripted Chat Completions server', () => {
  it('answers a non-streaming request with a chat.completion carrying tool calls and usage', async () => {
    const response = await post(firstRequest);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await response.json();
    expect(body.object).toBe('chat.completion');
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message).toMatchObject({ role: 'assistant', content: null });
    expect(body.choices[0].message.tool_calls).toEqual([
      {
        id: 'call_0_0',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('streams SSE chunks: tool-call deltas by index, a usage chunk, then [DONE]', async () => {
    const response = await post({
      ...firstRequest,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = text.split('\n\n').filter((event) => event.length > 0);
    const chunks = events.slice(0, -1).map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return JSON.parse(event.slice('data: '.length));
    });
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    const deltas = chunks.flatMap((chunk) =>
      chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []),
    );
    expect(deltas[0]).toMatchObject({
      index: 0,
      id: 'call_0_0',
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(deltas.length).toBeGreaterThan(2);
    expect(JSON.parse(deltas.map((delta) => delta.function.arguments).join(''))).toEqual({
      city: 'Paris',
    });
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish?.choices[0].finish_reason).toBe('tool_calls');
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('refuses, with an OpenAI error body, a request whose tool results are missing', async () => {
    const response = await post({
      ...firstRequest,
      messages: [
        ...firstRequest.messages,
        { role: 'assistant', content: null, tool_calls: [] },
        { role: 'user', content: 'go on' },
      ],
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/tool message/);
  });
});

describe('bare loop (the floor)', () => {
  it('completes the 5-turn script without streaming', async () => {
    const before = server.stats.requests;
    const { text, messages } = await bareLoop({
      baseURL: server.baseURL,
      model: 'loop',
      tools: loopToolSchemas,
      implementation,
    });
    expect(text).toBe(loopAnswer);
    expect(server.stats.requests - before).toBe(LOOP_TURNS);
    expect(messages.filter((message) => message.role === 'tool')).toHaveLength(5);
    expect(messages.find((message) => message.tool_call_id === 'call_2_1')?.content).toBe(
      '{"sum":5}',
    );
  });

  it('completes the 5-turn script streaming, delta by delta', async () => {
    const deltas = [];
    const { text } = await bareStreamLoop({
      baseURL: server.baseURL,
      model: 'loop',
      tools: loopToolSchemas,
      implementation,
      onText: (delta) => deltas.push(delta),
    });
    expect(text).toBe(loopAnswer);
    expect(deltas).toHaveLength(LOOP_ANSWER_DELTAS);
  });
});
