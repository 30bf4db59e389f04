import type { ToolDefinition } from '@agcore/tools-core';
import type { ChatMessage } from '../messages.js';
import type { Usage } from '../types.js';

/** The size of one part of a request. */
export interface PartSize {
  /** UTF-8 bytes of the part's JSON. */
  readonly bytes: number;
  /** `ceil(bytes / 4)`: the same heuristic as compaction's `estimateTokens` (about 4 bytes of JSON per token). */
  readonly estimatedTokens: number;
}

/** Where the context of one request went (`cycle.lastRequestBreakdown()`). */
export interface RequestBreakdown {
  /** The system prompt. */
  readonly system: PartSize;
  /** The tool definitions sent (with `read_result` when spilling). */
  readonly toolDefinitions: PartSize;
  /** The history before the new results: prompts, answers, older tool results (as sent, after clearing). */
  readonly history: PartSize;
  /** The tool messages of the turn just run (the trailing tool messages). */
  readonly newResults: PartSize;
  /** All four together. */
  readonly total: PartSize;
  /** What the server reported for this request, when it did (exact, unlike the estimates). */
  readonly reportedUsage?: Usage;
}

const encoder = new TextEncoder();

/** What the last request sent, kept as is: it is measured only when asked. */
export interface SentRequest {
  readonly messages: readonly ChatMessage[];
  readonly definitions: readonly ToolDefinition[];
  usage?: Usage | undefined;
}

/** The breakdown of a sent request. Never throws. */
export function breakdownOf(sent: SentRequest): RequestBreakdown {
  const { messages } = sent;
  const systemMessages = messages[0]?.role === 'system' ? 1 : 0;
  let resultsFrom = messages.length;
  while (resultsFrom > systemMessages && messages[resultsFrom - 1]?.role === 'tool') resultsFrom--;
  const system = part(messages.slice(0, systemMessages));
  const toolDefinitions = part(sent.definitions);
  const history = part(messages.slice(systemMessages, resultsFrom));
  const newResults = part(messages.slice(resultsFrom));
  const bytes = system.bytes + toolDefinitions.bytes + history.bytes + newResults.bytes;
  return {
    system,
    toolDefinitions,
    history,
    newResults,
    total: sizeOf(bytes),
    ...(sent.usage === undefined ? {} : { reportedUsage: sent.usage }),
  };
}

function part(items: readonly unknown[]): PartSize {
  let bytes = 0;
  for (const item of items) bytes += encoder.encode(JSON.stringify(item)).length;
  return sizeOf(bytes);
}

function sizeOf(bytes: number): PartSize {
  return { bytes, estimatedTokens: Math.ceil(bytes / 4) };
}
