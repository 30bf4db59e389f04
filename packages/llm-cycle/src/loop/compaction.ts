import { describeThrown, type ToolDefinition } from '@agcore/tools-core';
import { LlmError } from '../llm-error.js';
import type { ChatMessage } from '../messages.js';

/** Estimates the tokens of some messages. */
export type TokenEstimator = (messages: readonly ChatMessage[]) => number;

/** What a `CompactionStrategy` receives. */
export interface CompactionInput {
  /** The history without the system prompt (the cycle keeps that itself). */
  readonly messages: readonly ChatMessage[];
  /** The budget for these messages, in estimated tokens (the system prompt and tool definitions already taken off). */
  readonly maxTokens: number;
  /** The estimator in use. */
  readonly estimateTokens: TokenEstimator;
  /** Aborts with the request (for strategies that call a model). */
  readonly signal: AbortSignal;
}

/**
 * Shrinks a history that is over budget and returns the new one. It must keep each assistant
 * message with tool calls together with all of its tool messages (the cycle checks, and fails
 * with `compaction_failed` otherwise) and should keep the last user message.
 */
export type CompactionStrategy = (
  input: CompactionInput,
) => readonly ChatMessage[] | Promise<readonly ChatMessage[]>;

/** When and how the cycle compacts its history before a request. */
export interface CompactionOptions {
  /** The budget for system prompt + history + tool definitions, in estimated tokens. */
  readonly maxTokens: number;
  /** How to shrink the history (default `dropOldestExchanges()`). */
  readonly strategy?: CompactionStrategy;
  /** How to count tokens (default `estimateTokens`: about 4 characters of JSON per token). */
  readonly estimateTokens?: TokenEstimator;
}

const sizes = new WeakMap<object, number>();

/**
 * A rough token count: about one token per 4 characters of the messages' JSON. Cached per
 * message object, so estimating a long history every turn stays cheap. Never throws.
 */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) {
    let size = sizes.get(message);
    if (size === undefined) {
      size = Math.ceil(JSON.stringify(message).length / 4) + 4;
      sizes.set(message, size);
    }
    total += size;
  }
  return total;
}

/** A rough token count of tool definitions (4 characters of JSON per token). Never throws. */
export function estimateDefinitionTokens(definitions: readonly ToolDefinition[]): number {
  return definitions.length === 0 ? 0 : Math.ceil(JSON.stringify(definitions).length / 4);
}

/**
 * Splits a history into units that must stay together: a user message; an assistant message
 * without tool calls; an assistant message with tool calls plus the tool messages answering
 * them. A stray tool message joins the unit before it. Never throws.
 */
export function groupExchanges(messages: readonly ChatMessage[]): ChatMessage[][] {
  const units: ChatMessage[][] = [];
  for (const message of messages) {
    const last = units[units.length - 1];
    if (message.role === 'tool' && last !== undefined) last.push(message);
    else units.push([message]);
  }
  return units;
}

/**
 * The default strategy: drops the oldest units (see `groupExchanges`) until the rest fits,
 * never the last user message and never the newest unit. When even that does not fit, it
 * returns what is left and the request goes out over budget. Never throws.
 */
export function dropOldestExchanges(): CompactionStrategy {
  return ({ messages, maxTokens, estimateTokens: estimate }) => {
    const units = groupExchanges(messages);
    let lastUser = -1;
    units.forEach((unit, index) => {
      if (unit[0]?.role === 'user') lastUser = index;
    });
    const sizesOfUnits = units.map((unit) => estimate(unit));
    let total = sizesOfUnits.reduce((sum, size) => sum + size, 0);
    const dropped = new Set<number>();
    for (let index = 0; index < units.length - 1 && total > maxTokens; index++) {
      if (index === lastUser) continue;
      dropped.add(index);
      total -= sizesOfUnits[index] ?? 0;
    }
    return units.filter((_, index) => !dropped.has(index)).flat();
  };
}

/** Options of `summarizeOldestExchanges`. */
export interface SummarizeOptions {
  /** Writes a summary of `messages` (e.g. by asking a model). */
  readonly summarize: (messages: readonly ChatMessage[], signal: AbortSignal) => Promise<string>;
  /** How the summary enters the history (default: a user message starting "Summary of the earlier conversation:"). */
  readonly toMessage?: (summary: string) => ChatMessage;
}

/**
 * A strategy that replaces the units `dropOldestExchanges` would drop by one summary message
 * written by `options.summarize`. Rejects with whatever `summarize` throws.
 */
export function summarizeOldestExchanges(options: SummarizeOptions): CompactionStrategy {
  const drop = dropOldestExchanges();
  return async (input) => {
    const kept = await drop(input);
    const keptSet = new Set(kept);
    const removed = input.messages.filter((message) => !keptSet.has(message));
    if (removed.length === 0) return kept;
    const summary = await options.summarize(removed, input.signal);
    const message = options.toMessage?.(summary) ?? {
      role: 'user',
      content: `Summary of the earlier conversation:\n${summary}`,
    };
    return [message, ...kept];
  };
}

/** Tells what is wrong with the tool-call/tool-message pairing of `messages`, or `undefined` when it is whole. Never throws. */
export function describeBrokenToolPairs(messages: readonly ChatMessage[]): string | undefined {
  let open: Set<string> | undefined;
  for (const message of messages) {
    if (message.role === 'tool') {
      if (open === undefined || !open.delete(message.tool_call_id)) {
        return `tool message for '${message.tool_call_id}' has no assistant tool call right before it`;
      }
      continue;
    }
    if (open !== undefined && open.size > 0)
      return `tool call(s) ${[...open].join(', ')} have no tool message`;
    open =
      message.role === 'assistant' && message.tool_calls !== undefined
        ? new Set(message.tool_calls.map((call) => call.id))
        : undefined;
  }
  if (open !== undefined && open.size > 0)
    return `tool call(s) ${[...open].join(', ')} have no tool message`;
  return undefined;
}

/** How the cycle compacts, with the defaults filled in. */
export interface ResolvedCompaction {
  readonly maxTokens: number;
  readonly strategy: CompactionStrategy;
  readonly estimate: TokenEstimator;
}

/**
 * The history compacted to fit the budget left by the system prompt and the tool definitions,
 * or `undefined` when it already fits.
 * @throws {LlmError} `compaction_failed` when the strategy or the estimator throws, the strategy returns no array or breaks a
 * tool-call pair; whatever the strategy threw when `signal` aborted
 */
export async function compactHistory(
  history: readonly ChatMessage[],
  system: ChatMessage | undefined,
  definitionTokens: number,
  compaction: ResolvedCompaction,
  signal: AbortSignal,
): Promise<ChatMessage[] | undefined> {
  let result: readonly ChatMessage[];
  try {
    const systemTokens = system === undefined ? 0 : compaction.estimate([system]);
    const budget = compaction.maxTokens - systemTokens - definitionTokens;
    if (compaction.estimate(history) <= budget) return undefined;
    result = await compaction.strategy({
      messages: history.slice(),
      maxTokens: budget,
      estimateTokens: compaction.estimate,
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new LlmError(
      'compaction_failed',
      `The compaction strategy (or its token estimator) failed: ${describeThrown(error)}`,
      { cause: error },
    );
  }
  if (!Array.isArray(result)) {
    throw new LlmError(
      'compaction_failed',
      'The compaction strategy did not return an array of messages.',
    );
  }
  const broken = describeBrokenToolPairs(result);
  if (broken !== undefined) {
    throw new LlmError(
      'compaction_failed',
      `The compaction strategy broke a tool-call pair: ${broken}. Keep each assistant tool-call message with its tool messages.`,
    );
  }
  return [...result];
}
