/**
 * One connection per conversation, on every request path: the server counts the TCP
 * connections it accepts, and a 5-turn tool conversation (4 tool turns, one with two parallel
 * calls, then a text answer) must open exactly one, streamed or not, whatever the shape of the
 * answers. Counts, not time: each test starts a server of its own, so no other test's
 * connections blur the count.
 */
import { defineTool, type JsonValue } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmCycle } from '../../loop/llm-cycle.js';
import type { StreamEvent } from '../../stream-events.js';
import {
  type ChatCompletionsServer,
  type ReceivedRequest,
  type ServerReply,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/openai-compatible-provider.js';

/** The tool calls of turns 1–4 of the script; turn 5 answers with text. */
const script = [
  [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
  [{ id: 'call_2', name: 'lookup_order', arguments: '{"id":"A-17"}' }],
  [
    { id: 'call_3', name: 'get_weather', arguments: '{"city":"Lima"}' },
    { id: 'call_4', name: 'add', arguments: '{"a":2,"b":3}' },
  ],
  [{ id: 'call_5', name: 'add', arguments: '{"a":5,"b":8}' }],
] as const;
const answer = 'Oslo 4 °C, order A-17 shipped, Lima 19 °C, 13.';

/** How the server answers: the wire shape the request asked for, or always one shape. */
type Shape = 'as-asked' | 'always-sse' | 'always-json';

/**
 * The reply to a request of the script, chosen by how many assistant messages it carries
 * (stateless, so several conversations can share the server).
 */
function replyTo(shape: Shape): (request: ReceivedRequest) => ServerReply {
  return (request) => {
    const body = request.body as { messages: { role: string }[]; stream?: boolean };
    const turn = body.messages.filter((message) => message.role === 'assistant').length;
    const calls = script[turn];
    const streamed = shape === 'always-sse' || (shape === 'as-asked' && body.stream === true);
    if (streamed) {
      const writes =
        calls === undefined
          ? textStream(['Oslo 4 °C, ', 'order A-17 shipped, ', 'Lima 19 °C, 13.'])
          : toolCallStream(
              calls.map((call) => ({ id: call.id, name: call.name, pieces: [call.arguments] })),
            );
      return { kind: 'sse', writes };
    }
    return {
      kind: 'json',
      body: calls === undefined ? textCompletion(answer) : toolCallCompletion([...calls]),
    };
  };
}

function tool(name: string, run: (args: Record<string, JsonValue>) => JsonValue) {
  return defineTool({
    name,
    description: name,
    parameters: { type: 'object', properties: {}, additionalProperties: true },
    execute: async (args) => run(args as Record<string, JsonValue>),
  });
}

const registry = new ToolRegistry()
  .register(tool('get_weather', (args) => ({ city: args.city ?? null, celsius: 4 })))
  .register(tool('lookup_order', (args) => ({ id: args.id ?? null, status: 'shipped' })))
  .register(tool('add', (args) => Number(args.a) + Number(args.b)));

/** Runs the 5-turn conversation on a new cycle; resolves to its final text. */
async function converse(cycle: LlmCycle, streamed: boolean): Promise<string> {
  if (!streamed) return (await cycle.submitWithTools('Go', registry)).message.content ?? '';
  const events: StreamEvent[] = [];
  const stream = cycle.submitStreamWithTools('Go', registry);
  for (let step = await stream.next(); ; step = await stream.next()) {
    if (step.done === true) return step.value.message.content ?? '';
    events.push(step.value);
  }
}

async function withServer(run: (server: ChatCompletionsServer) => Promise<void>): Promise<void> {
  const server = await startChatCompletionsServer({ recordRequests: false });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

const paths = [
  { name: 'non-streamed (JSON answers)', streamed: false, shape: 'as-asked' },
  { name: 'streamed (SSE answers)', streamed: true, shape: 'as-asked' },
  {
    name: 'non-streamed, answered in SSE (a proxy that always streams)',
    streamed: false,
    shape: 'always-sse',
  },
  {
    name: 'streamed, answered in JSON (a server that ignores stream)',
    streamed: true,
    shape: 'always-json',
  },
] as const;

describe('one connection per conversation', () => {
  for (const path of paths) {
    it(`a 5-turn tool conversation opens exactly one connection: ${path.name}`, async () => {
      await withServer(async (server) => {
        server.fallback(replyTo(path.shape));
        const provider = createOpenAICompatibleProvider({
          baseURL: server.baseURL,
          apiKey: 'sk-1',
        });
        const cycle = new LlmCycle({ provider, model: 'm', retry: { maxRetries: 0 } });
        expect(await converse(cycle, path.streamed)).toBe(answer);
        expect(cycle.messages()).toHaveLength(11);
        expect(server.connections()).toBe(1);
      });
    });
  }

  it('conversations at once on one shared provider open at most one connection each (streamed and not)', async () => {
    await withServer(async (server) => {
      server.fallback(replyTo('as-asked'));
      const provider = createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-1' });
      const conversations = Array.from({ length: 12 }, (_, index) =>
        converse(new LlmCycle({ provider, model: 'm', retry: { maxRetries: 0 } }), index % 2 === 0),
      );
      expect(await Promise.all(conversations)).toEqual(Array(12).fill(answer));
      // At most one each (a connection not given back would open one a turn: 60). Fewer when a
      // conversation's first request, late on a loaded machine, finds another's connection free.
      expect(server.connections()).toBeLessThanOrEqual(12);
    });
  });

  it('a second conversation on the same provider after the first reuses its connection', async () => {
    await withServer(async (server) => {
      server.fallback(replyTo('as-asked'));
      const provider = createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-1' });
      for (const streamed of [false, true, false]) {
        const cycle = new LlmCycle({ provider, model: 'm', retry: { maxRetries: 0 } });
        expect(await converse(cycle, streamed)).toBe(answer);
      }
      expect(server.connections()).toBe(1);
    });
  });
});
