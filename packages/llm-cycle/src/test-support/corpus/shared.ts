/** What every cassette of the dialect corpus shares: the conversation, the entry type, helpers. */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import type { ServerReply } from '../../testing/index.js';

/** What the cycle is set up with, the same for every provider. */
export const conversation = {
  systemPrompt: 'You are a weather assistant. Use the tools.',
  prompt: 'What is the weather in Paris?',
  answer: 'It is 18 °C in Paris.',
} as const;

/** One provider of the corpus. */
export interface CorpusEntry {
  /** The cassette's file name (without `.json`). */
  readonly name: string;
  /** The documentation the answers' shape comes from. */
  readonly source: string;
  /** The provider's real API root (the replaying provider's `baseURL`). */
  readonly baseURL: string;
  readonly model: string;
  /** Provider options beyond the base URL (credentials are placeholders; they are not recorded). */
  readonly providerOptions?: {
    readonly headers?: Readonly<Record<string, string>>;
    readonly sendReasoning?: 'never' | 'tool-calls' | 'always';
  };
  /** The raw answers: the tool-call turn, then the final turn. */
  readonly answers: readonly ServerReply[];
  /** What the replay must give. */
  readonly expect: {
    readonly calls: readonly (readonly [string, Record<string, unknown>])[];
    readonly text: string;
    readonly reasoning?: string;
    readonly totalTokens: number;
    /** Whether the second request sends the first answer's reasoning back. */
    readonly reasoningSentBack?: boolean;
  };
}

export const created = 1_767_225_600;
export const sse = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
export const done = 'data: [DONE]\n\n';
export const stream = (writes: readonly string[]): ServerReply => ({ kind: 'sse', writes });
export const pieces = ['It', ' is', ' 18', ' °C', ' in', ' Paris', '.'];

/** An OpenAI-style chunk envelope with one choice. */
export function openAIChunk(
  base: Record<string, unknown>,
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return sse({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...extra }],
  });
}

/** The tools of the corpus conversation: `get_weather`, the same answer for any city. */
export function corpusRegistry(): ToolRegistry {
  return new ToolRegistry().register(
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      execute: async ({ city }) => ({ city, temperature: 18, unit: 'C' }),
    }),
  );
}
