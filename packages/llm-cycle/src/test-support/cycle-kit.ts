/**
 * Shared parts of the tests of `LlmCycle` over the wire-format server: the server fixture with a
 * cycle factory, four tools (weather, clock, a failing disk, a large result), a tool that waits
 * until cancelled, and small readers of the history.
 */
import { defineTool, type ToolContext, ToolError } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { beforeEach, expect } from 'vitest';
import { LlmCycle, type LlmCycleOptions } from '../loop/llm-cycle.js';
import type { ChatMessage } from '../messages.js';
import { createOpenAICompatibleProvider } from '../providers/openai-compatible/openai-compatible-provider.js';
import type { ServerReply } from '../testing/index.js';
import { type ChatServerFixture, useChatServer } from './chat-server.js';

/** The server fixture of a cycle test file, and cycles talking to that server. */
export interface CycleFixture extends ChatServerFixture {
  /** A cycle on the server (model `gpt-4o-mini`, a system prompt, 1–50 ms retry delays). */
  readonly makeCycle: (options?: Partial<LlmCycleOptions>) => LlmCycle;
}

/**
 * Starts the server for the file; before each test forgets its requests and checks that no
 * reply is left over from the previous test.
 */
export function useCycleServer(): CycleFixture {
  const fixture = useChatServer();
  beforeEach(() => {
    fixture.server.requests.length = 0;
    expect(fixture.server.pending()).toBe(0);
  });
  return {
    get server() {
      return fixture.server;
    },
    sent: fixture.sent,
    makeCycle: (options = {}) =>
      new LlmCycle({
        provider: createOpenAICompatibleProvider({
          baseURL: fixture.server.baseURL,
          apiKey: 'sk-test',
        }),
        model: 'gpt-4o-mini',
        systemPrompt: 'You are a helpful assistant.',
        retry: { initialDelayMs: 1, maxDelayMs: 50 },
        ...options,
      }),
  };
}

/** The conversation without the system prompt (which `messages()` puts first). */
export function withoutSystem(cycle: LlmCycle): ChatMessage[] {
  return cycle.messages().filter((message) => message.role !== 'system');
}

/** The roles of `messages`, in order. */
export function roles(messages: readonly ChatMessage[]): string[] {
  return messages.map((message) => message.role);
}

/** A JSON reply of the server. */
export function json(body: unknown): ServerReply {
  return { kind: 'json', body };
}

/** A tool that runs until its signal aborts; `onStart` sees the signal as the call starts. */
export function waitForever(onStart: (signal: AbortSignal) => void) {
  return defineTool({
    name: 'wait_forever',
    description: 'Waits until cancelled',
    parameters: { type: 'object', properties: {} },
    execute: (_args, context) =>
      new Promise<string>((_resolve, reject) => {
        onStart(context.signal);
        context.signal.addEventListener('abort', () => reject(new Error('stopped')));
      }),
  });
}

/** The contexts `get_weather` was called with (tests empty it first). */
export const contexts: ToolContext[] = [];

/** `get_weather`: the weather of a city; records its context, fails for Atlantis. */
export const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  execute: async ({ city }, context) => {
    contexts.push(context);
    if (city === 'Atlantis') throw new Error('no weather station in Atlantis');
    return { city, temperature: 22, unit: 'C' };
  },
});
/** `get_time`: the time in a zone (UTC by default). */
export const clock = defineTool({
  name: 'get_time',
  description: 'Current time in a time zone',
  parameters: { type: 'object', properties: { zone: { type: 'string' } } },
  execute: async ({ zone }) => ({ zone: zone ?? 'UTC', time: '12:00' }),
});
const disk = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async ({ path }): Promise<string> => {
    throw new ToolError('io', `Disk unavailable while reading ${path}`, { toolName: 'read_file' });
  },
});
const big = defineTool({
  name: 'big_result',
  description: 'Returns a large text',
  parameters: { type: 'object', properties: {} },
  execute: async () => 'é東🌸'.repeat(5_000),
});

/**
 * `get_weather` (fails for Atlantis), `get_time`, `read_file` (a fatal `io` ToolError) and
 * `big_result` (15 000 characters of multi-byte text).
 */
export function registry(): ToolRegistry {
  return new ToolRegistry().registerAll([weather, clock, disk, big]);
}
