/**
 * Launching many conversations at once: the submit calls return before their request is built,
 * and the requests go out over several turns of the event loop, so a process taking a burst still serves its timers
 * and sockets. Event order only: a `fetch` that does a fixed amount of synchronous work stands
 * for the real one (whose synchronous part is what blocks), and the tests look at how many
 * requests had been handed to it when the event loop next ran something else.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { textCompletion } from '../../testing/index.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/openai-compatible-provider.js';

/** Spins for `ms` milliseconds: the synchronous part of a real `fetch` (building, connecting). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

/** A `fetch` that records the prompt of each request it gets and answers it at once. */
function recordingFetch(sent: string[], workMs: number): typeof globalThis.fetch {
  return async (_url, init) => {
    const body = JSON.parse(String(init?.body)) as { messages: { content: string }[] };
    sent.push(body.messages.at(-1)?.content ?? '');
    spin(workMs);
    return new Response(JSON.stringify(textCompletion(`re: ${sent.at(-1)}`)), {
      headers: { 'content-type': 'application/json' },
    });
  };
}

const registry = new ToolRegistry().register(
  defineTool({
    name: 'noop',
    description: 'Does nothing',
    parameters: { type: 'object', properties: {} },
    execute: async () => 'ok',
  }),
);

describe('launching a burst of conversations', () => {
  it('spreads the requests over turns of the event loop, first come first served', async () => {
    const sent: string[] = [];
    const provider = createOpenAICompatibleProvider({
      baseURL: 'http://127.0.0.1:9/v1',
      fetch: recordingFetch(sent, 1),
    });
    let sentBeforeNextTurn = -1;
    setImmediate(() => {
      sentBeforeNextTurn = sent.length;
    });
    const prompts = Array.from({ length: 40 }, (_, index) => `prompt ${index}`);
    const answers = prompts.map((prompt) =>
      new LlmCycle({ provider, model: 'm', retry: { maxRetries: 0 } }).submitWithTools(
        prompt,
        registry,
      ),
    );
    const sentDuringCalls = sent.length;
    const responses = await Promise.all(answers);
    // 40 requests of 1 ms each: a few went out before the loop turned, the rest after.
    expect(sentDuringCalls).toBeLessThan(10);
    expect(sentBeforeNextTurn).toBeLessThan(10);
    expect(sent).toEqual(prompts);
    expect(responses.map((response) => response.message.content)).toEqual(
      prompts.map((prompt) => `re: ${prompt}`),
    );
  });

  it('a lone request: the submit returns first, the request goes out before the loop turns', async () => {
    const sent: string[] = [];
    const provider = createOpenAICompatibleProvider({
      baseURL: 'http://127.0.0.1:9/v1',
      fetch: recordingFetch(sent, 0),
    });
    // Let any slice of an earlier test close.
    await new Promise((resolve) => setImmediate(resolve));
    let sentBeforeNextTurn = -1;
    setImmediate(() => {
      sentBeforeNextTurn = sent.length;
    });
    const answer = new LlmCycle({ provider, model: 'm' }).submit('alone');
    expect(sent).toEqual([]);
    expect((await answer).message.content).toBe('re: alone');
    expect(sentBeforeNextTurn).toBe(1);
  });
});
