/**
 * Reasoning through the loop: streamed as `assistant_reasoning_delta`, kept on the response
 * and on the assistant message, and sent back the way the provider needs it (DeepSeek's rule).
 * And the last `turn_complete` of a loop never says `tool_calls`.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../llm-error.js';
import { LlmCycle } from '../../loop/llm-cycle.js';
import type { AssistantMessage } from '../../messages.js';
import type { StreamEvent } from '../../stream-events.js';
import { useChatServer } from '../../test-support/chat-server.js';
import {
  completionChunk,
  type ReceivedRequest,
  ScriptedProvider,
  type ServerReply,
  sseDone,
  sseEvent,
  textResponse,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';

const fixture = useChatServer({ resetBeforeEach: true });

const clock = defineTool({
  name: 'get_time',
  description: 'The time',
  parameters: { type: 'object', properties: {} },
  execute: async () => '12:00',
});
const registry = new ToolRegistry().register(clock);

/** DeepSeek's thinking mode, as documented: a tool turn must get its reasoning_content back. */
function deepSeekLike(request: ReceivedRequest): ServerReply {
  const body = request.body as { messages: Record<string, unknown>[] };
  const assistants = body.messages.filter((message) => message.role === 'assistant');
  if (
    assistants.some(
      (message) => message.tool_calls !== undefined && message.reasoning_content === undefined,
    )
  ) {
    return {
      kind: 'json',
      status: 400,
      body: {
        error: {
          message: 'The reasoning_content in the thinking mode must be passed back to the API.',
          type: 'invalid_request_error',
        },
      },
    };
  }
  const id = 'chatcmpl-ds';
  if (assistants.length === 0) {
    return {
      kind: 'sse',
      writes: [
        sseEvent(
          completionChunk(id, { role: 'assistant', content: null, reasoning_content: 'Need the ' }),
        ),
        sseEvent(completionChunk(id, { reasoning_content: 'clock.' })),
        sseEvent(
          completionChunk(id, {
            tool_calls: [
              {
                index: 0,
                id: 'call_t',
                type: 'function',
                function: { name: 'get_time', arguments: '{}' },
              },
            ],
          }),
        ),
        sseEvent(completionChunk(id, {}, 'tool_calls')),
        sseDone,
      ],
    };
  }
  return {
    kind: 'sse',
    writes: [
      sseEvent(completionChunk(id, { reasoning_content: 'Say it.' })),
      sseEvent(completionChunk(id, { content: 'It is noon.' })),
      sseEvent(completionChunk(id, {}, 'stop')),
      sseDone,
    ],
  };
}

describe('reasoning in the loop', () => {
  it('streams assistant_reasoning_delta, keeps reasoning on the response and the history', async () => {
    fixture.server.fallback(deepSeekLike);
    const cycle = new LlmCycle({
      provider: createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL, deepseek: true }),
      model: 'deepseek-reasoner',
    });
    const events: StreamEvent[] = [];
    const stream = cycle.submitStreamWithTools('What time is it?', registry);
    let step = await stream.next();
    for (; step.done !== true; step = await stream.next()) events.push(step.value);
    expect(step.value.reasoning).toBe('Say it.');
    expect(step.value.message.content).toBe('It is noon.');
    const reasoning = events.filter((event) => event.type === 'assistant_reasoning_delta');
    expect(reasoning.map((event) => event.text)).toEqual(['Need the ', 'clock.', 'Say it.']);
    const types = events.map((event) => event.type);
    expect(types.indexOf('assistant_reasoning_delta')).toBeLessThan(
      types.indexOf('tool_call_delta'),
    );
    const [, toolTurn, , answer] = cycle.messages() as AssistantMessage[];
    expect(toolTurn?.reasoning_content).toBe('Need the clock.');
    expect(answer?.reasoning_content).toBe('Say it.');
    fixture.server.fallback(undefined);
  });

  it("follows DeepSeek's rule: reasoning goes back with tool-call turns, so the loop completes (both loops)", async () => {
    fixture.server.fallback(deepSeekLike);
    for (const streaming of [false, true]) {
      const cycle = new LlmCycle({
        provider: createOpenAICompatibleProvider({
          baseURL: fixture.server.baseURL,
          deepseek: true,
        }),
        model: 'deepseek-reasoner',
      });
      const response = streaming
        ? await (async () => {
            const stream = cycle.submitStreamWithTools('What time is it?', registry);
            for (let step = await stream.next(); ; step = await stream.next())
              if (step.done === true) return step.value;
          })()
        : await cycle.submitWithTools('What time is it?', registry);
      expect(response.message.content).toBe('It is noon.');
      // A plain follow-up: the earlier answer's reasoning (no tool call) is not sent back.
      fixture.server.fallback(() => ({
        kind: 'json',
        body: {
          id: 'x',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' },
          ],
        },
      }));
      fixture.server.requests.length = 0;
      await cycle.submit('Thanks');
      const sent =
        (fixture.server.requests[0]?.body as { messages: AssistantMessage[] } | undefined)
          ?.messages ?? [];
      const assistants = sent.filter((message) => message.role === 'assistant');
      expect(assistants.map((message) => message.reasoning_content)).toEqual([
        'Need the clock.',
        undefined,
      ]);
      fixture.server.fallback(deepSeekLike);
    }
    fixture.server.fallback(undefined);
  });

  it('sendReasoning overrides the rule: never sends reasoning back, always sends it everywhere', async () => {
    fixture.server.fallback(deepSeekLike);
    const plain = new LlmCycle({
      provider: createOpenAICompatibleProvider({
        baseURL: fixture.server.baseURL,
        sendReasoning: 'never',
      }),
      model: 'm',
      retry: { maxRetries: 0 },
    });
    const error = await plain
      .submitWithTools('What time is it?', registry)
      .catch((reason: unknown) => reason);
    expect(LlmError.isInstance(error) && error.statusCode).toBe(400);
    const always = new LlmCycle({
      provider: createOpenAICompatibleProvider({
        baseURL: fixture.server.baseURL,
        sendReasoning: 'always',
      }),
      model: 'm',
    });
    expect((await always.submitWithTools('What time is it?', registry)).message.content).toBe(
      'It is noon.',
    );
    fixture.server.fallback(undefined);
  });
});

type ReasoningField = 'reasoning_content' | 'reasoning';

/** A tool-call answer naming `model`, its reasoning under `field`, streamed or whole. */
function toolTurn(model: string, field: ReasoningField, streamed: boolean): ServerReply {
  const call = { id: 'call_t', type: 'function', function: { name: 'get_time', arguments: '{}' } };
  if (!streamed) {
    return {
      kind: 'json',
      body: {
        id: 'chatcmpl-gw',
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, [field]: 'Thinking.', tool_calls: [call] },
            finish_reason: 'tool_calls',
          },
        ],
      },
    };
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseEvent({ ...completionChunk('chatcmpl-gw', delta, finish), model });
  return {
    kind: 'sse',
    writes: [
      chunk({ role: 'assistant', content: null, [field]: 'Thinking.' }),
      chunk({ tool_calls: [{ index: 0, ...call }] }),
      chunk({}, 'tool_calls'),
      sseDone,
    ],
  };
}

/** The answer after the tool turn. */
function finalTurn(model: string, streamed: boolean): ServerReply {
  if (!streamed) {
    return {
      kind: 'json',
      body: {
        id: 'chatcmpl-gw2',
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Noon.' }, finish_reason: 'stop' },
        ],
      },
    };
  }
  return {
    kind: 'sse',
    writes: [
      sseEvent({ ...completionChunk('chatcmpl-gw2', { content: 'Noon.' }, 'stop'), model }),
      sseDone,
    ],
  };
}

async function askTime(cycle: LlmCycle, streamed: boolean): Promise<string | null> {
  if (!streamed) return (await cycle.submitWithTools('Time?', registry)).message.content;
  const stream = cycle.submitStreamWithTools('Time?', registry);
  for (let step = await stream.next(); ; step = await stream.next())
    if (step.done === true) return step.value.message.content;
}

/** The `reasoning_content` of the tool-call message in the follow-up request. */
function reasoningSentBack(): unknown {
  const body = fixture.server.requests[1]?.body as { messages: AssistantMessage[] } | undefined;
  return body?.messages.find((message) => message.role === 'assistant')?.reasoning_content;
}

describe('DeepSeek behind a gateway (a base URL that is not deepseek.com)', () => {
  const deepSeekBehindGateway: readonly [string, string, ReasoningField][] = [
    // [the request's model, the response's model, the field the server sends reasoning in]
    ['deepseek/deepseek-r1', 'deepseek/deepseek-r1', 'reasoning'], // LiteLLM
    ['openrouter/deepseek/deepseek-chat-v3.1', 'deepseek/deepseek-chat-v3.1', 'reasoning'],
    ['deepseek-ai/DeepSeek-V3.1', 'deepseek-ai/DeepSeek-V3.1', 'reasoning'], // vLLM
    ['DEEPSEEK-REASONER', 'DEEPSEEK-REASONER', 'reasoning'],
    ['company-reasoner', 'deepseek-reasoner', 'reasoning'], // a proxy's alias; the server says
    ['company-reasoner', 'company-reasoner', 'reasoning_content'], // DeepSeek's own field
  ];
  for (const streamed of [false, true]) {
    for (const [model, answered, field] of deepSeekBehindGateway) {
      it(`${model} answered as ${answered} with ${field}: the tool turn's reasoning goes back (${streamed ? 'streamed' : 'whole'})`, async () => {
        fixture.server
          .requireReasoningContent()
          .reply(toolTurn(answered, field, streamed), finalTurn(answered, streamed));
        const cycle = new LlmCycle({
          provider: createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL }),
          model,
          retry: { maxRetries: 0 },
        });
        expect(await askTime(cycle, streamed)).toBe('Noon.');
        expect(reasoningSentBack()).toBe('Thinking.');
      });
    }
  }

  for (const [model, field] of [
    ['qwen3-32b', 'reasoning'],
    ['my-deepseek-proxy', 'reasoning'],
    ['gpt-oss-120b', 'reasoning'],
  ] as const) {
    it(`${model} with ${field} (not DeepSeek's rule): the reasoning stays out of later requests`, async () => {
      fixture.server.reply(toolTurn(model, field, true), finalTurn(model, true));
      const cycle = new LlmCycle({
        provider: createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL }),
        model,
      });
      expect(await askTime(cycle, true)).toBe('Noon.');
      expect(reasoningSentBack()).toBeUndefined();
    });
  }

  it("sendReasoning: 'never' and deepseek: false override what the server says", async () => {
    for (const options of [{ sendReasoning: 'never' as const }, { deepseek: false }]) {
      fixture.server
        .reset()
        .requireReasoningContent()
        .reply(toolTurn('deepseek-r1', 'reasoning_content', false));
      const cycle = new LlmCycle({
        provider: createOpenAICompatibleProvider({ baseURL: fixture.server.baseURL, ...options }),
        model: 'deepseek/deepseek-r1',
        retry: { maxRetries: 0 },
      });
      const error = await cycle
        .submitWithTools('Time?', registry)
        .catch((reason: unknown) => reason);
      expect(LlmError.isInstance(error) && error.statusCode).toBe(400);
      expect(reasoningSentBack()).toBeUndefined();
    }
  });
});

describe('the end of a loop', () => {
  it("a custom provider's finish reason 'tool_calls' without calls ends the loop as 'stop'", async () => {
    for (const streaming of [false, true]) {
      const provider = new ScriptedProvider([
        textResponse('Done.', { finishReason: 'tool_calls' }),
      ]);
      const cycle = new LlmCycle({ provider, model: 'x' });
      const reasons: string[] = [];
      let finish: string;
      if (streaming) {
        const stream = cycle.submitStreamWithTools('Go', registry);
        let step = await stream.next();
        for (; step.done !== true; step = await stream.next()) {
          if (step.value.type === 'turn_complete') reasons.push(step.value.reason);
        }
        finish = step.value.finishReason;
      } else finish = (await cycle.submitWithTools('Go', registry)).finishReason;
      expect(finish).toBe('stop');
      if (streaming) expect(reasons).toEqual(['stop']);
    }
  });
});
