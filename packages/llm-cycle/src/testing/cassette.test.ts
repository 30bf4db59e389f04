import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import { createOpenAICompatibleProvider } from '../providers/openai-compatible/openai-compatible-provider.js';
import type { StreamEvent } from '../stream-events.js';
import {
  type Cassette,
  CassetteMismatchError,
  recordCassette,
  replayCassette,
  startChatCompletionsServer,
  textStream,
  toolCallStream,
} from './index.js';

const apiKey = 'sk-record-SECRET-0123456789';
const azureKey = 'azure-secret-abcdef012345';
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: async ({ city }) => ({ city, temperature: 18 }),
});
const registry = new ToolRegistry().register(weather);

/** Records one streamed tool loop against a live server, then closes the server. */
async function record(): Promise<Cassette> {
  const server = await startChatCompletionsServer();
  server.reply(
    {
      kind: 'sse',
      writes: toolCallStream([
        { id: 'call_1', name: 'get_weather', pieces: ['{"ci', 'ty":"Paris"}'] },
      ]),
    },
    { kind: 'sse', writes: textStream(['It is ', '18 °C', ` (key ${apiKey}).`]) },
  );
  const recorder = recordCassette({ source: 'a test server' });
  const provider = createOpenAICompatibleProvider({
    baseURL: server.baseURL,
    apiKey,
    headers: { 'api-key': azureKey },
    fetch: recorder.fetch,
  });
  const cycle = new LlmCycle({ provider, model: 'gpt-4o-mini', systemPrompt: 'Be brief.' });
  for await (const _event of cycle.submitStreamWithTools('Weather in Paris?', registry));
  await server.close();
  return JSON.parse(JSON.stringify(recorder.cassette())) as Cassette;
}

async function converse(cycle: LlmCycle, streaming: boolean, prompt = 'Weather in Paris?') {
  if (!streaming) return cycle.submitWithTools(prompt, registry);
  const events: StreamEvent[] = [];
  const stream = cycle.submitStreamWithTools(prompt, registry);
  for (let step = await stream.next(); ; step = await stream.next()) {
    if (step.done === true) return step.value;
    events.push(step.value);
  }
}

describe('recordCassette and replayCassette', () => {
  it('records requests and raw answers, with every credential taken out', async () => {
    const cassette = await record();
    expect(cassette.version).toBe(1);
    expect(cassette.source).toBe('a test server');
    expect(cassette.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(cassette.exchanges).toHaveLength(2);
    const [first, second] = cassette.exchanges;
    expect(first?.request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(first?.request.body).toMatchObject({ model: 'gpt-4o-mini', stream: true });
    expect(first?.response.status).toBe(200);
    expect(first?.response.headers['content-type']).toContain('text/event-stream');
    expect(first?.response.body).toContain('data: [DONE]');
    expect(second?.response.body).toContain('[redacted]');
    const text = JSON.stringify(cassette);
    for (const secret of [apiKey, azureKey]) expect(text).not.toContain(secret);
  });

  it('replays offline through both loops, in any cut of the reads', async () => {
    const cassette = await record();
    for (const streaming of [false, true]) {
      for (const reads of ['whole', 'recorded', { minBytes: 1, maxBytes: 48, seed: 7 }] as const) {
        const replay = replayCassette(cassette, { reads });
        const cycle = new LlmCycle({
          provider: replay.provider(),
          model: 'gpt-4o-mini',
          systemPrompt: 'Be brief.',
        });
        const response = await converse(cycle, streaming);
        expect(response.message.content).toBe('It is 18 °C (key [redacted]).');
        expect(cycle.messages()[3]).toEqual({
          role: 'tool',
          tool_call_id: 'call_1',
          content: '{"city":"Paris","temperature":18}',
        });
        replay.assertComplete();
      }
    }
  });

  it('a conversation that diverges fails at once with a typed error naming the request and the difference', async () => {
    const cassette = await record();
    const replay = replayCassette(cassette);
    const cycle = new LlmCycle({
      provider: replay.provider(),
      model: 'gpt-4o-mini',
      systemPrompt: 'Be brief.',
    });
    const error = await cycle
      .submitWithTools('Weather in Oslo?', registry)
      .catch((reason: unknown) => reason);
    expect(LlmError.isInstance(error) && error.code).toBe('provider_error');
    const mismatch = (error as LlmError).cause;
    expect(mismatch).toBeInstanceOf(CassetteMismatchError);
    expect(mismatch).toMatchObject({
      code: 'cassette_mismatch',
      requestIndex: 0,
      path: 'body.messages[1].content',
      expected: 'Weather in Paris?',
      actual: 'Weather in Oslo?',
    });
    expect((mismatch as Error).message).toContain('request 1');
    expect(replay.used()).toBe(1);
    expect(() => replay.assertComplete()).toThrow(CassetteMismatchError);
  });

  it('a conversation longer than the recording fails naming the request past the end', async () => {
    const cassette = await record();
    const replay = replayCassette({ ...cassette, exchanges: cassette.exchanges.slice(0, 1) });
    const cycle = new LlmCycle({
      provider: replay.provider(),
      model: 'gpt-4o-mini',
      systemPrompt: 'Be brief.',
    });
    const error = await cycle
      .submitWithTools('Weather in Paris?', registry)
      .catch((reason: unknown) => reason);
    const mismatch = (error as LlmError).cause as CassetteMismatchError;
    expect(mismatch.requestIndex).toBe(1);
    expect(mismatch.path).toBe('exchanges');
    expect(mismatch.message).toContain('request 2 has no recorded exchange');
  });

  it('the bare fetch of a replay rejects with the mismatch too, and refuses what is not a cassette', async () => {
    const cassette = await record();
    const replay = replayCassette(cassette);
    await expect(
      replay.fetch(`${cassette.baseURL}/models`, { method: 'GET' }),
    ).rejects.toMatchObject({ code: 'cassette_mismatch', path: 'method' });
    expect(() => replayCassette({ version: 2 } as unknown as Cassette)).toThrow(TypeError);
  });
});
