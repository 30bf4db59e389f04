import type { JsonValue } from '@agcore/tools-core';

/*
 * Types that the provider contract, the stream events and the run state all name. They live
 * here, at the root of the package's import graph, so that those files import one way.
 */

/**
 * Why the model stopped, as the Chat Completions API says it (`stop`, `length`, `tool_calls`,
 * `content_filter`, ...). Servers that send none give `unknown`.
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'tool_calls'
  | 'content_filter'
  | 'unknown'
  | (string & {});

/** Token use of one request (or, from `LlmCycle.usage()`, of many). */
export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Prompt tokens read from the provider's prompt cache, when it reports them. */
  readonly cacheReadTokens?: number;
  /** Prompt tokens written to the provider's prompt cache, when it reports them. */
  readonly cacheWriteTokens?: number;
  /** Completion tokens spent on reasoning, when the provider reports them. */
  readonly reasoningTokens?: number;
}

/**
 * A call the paused run waits on: a person's approval (`approval`), or the answer to the
 * question a tool asked with `awaitInput` (`input`, with its `prompt`).
 */
export interface Interruption {
  readonly kind: 'approval' | 'input';
  readonly callId: string;
  readonly toolName: string;
  /** The call's arguments, parsed: what the person decides about. */
  readonly input: JsonValue;
  /** The tool's question, for kind `input`. */
  readonly prompt?: string;
}
