import type { JsonValue } from '@agcore/tools-core';
import type { ChatProvider } from './chat-provider.js';
import {
  type CompactionOptions,
  dropOldestExchanges,
  estimateTokens,
  type ResolvedCompaction,
} from './compaction.js';
import type { ChatMessage, SystemMessage } from './messages.js';
import { type ResolvedRetryOptions, type RetryOptions, resolveRetryOptions } from './retry.js';
import type { LlmTracingOptions } from './tracing.js';

/** Options of `LlmCycle`. */
export interface LlmCycleOptions {
  /** The model behind the cycle, e.g. `createOpenAICompatibleProvider(...)` or a `ScriptedProvider`. */
  readonly provider: ChatProvider;
  /** The model name sent with every request. */
  readonly model: string;
  /** Sent first in every request and first in `messages()`; never compacted away. */
  readonly systemPrompt?: string;
  /** Most model requests one tool loop call makes (default 10). */
  readonly maxTurns?: number;
  /** Time limit of each tool call, in milliseconds (default 60 000). */
  readonly toolTimeoutMs?: number;
  /** Most tool calls of one turn running at once (default: all of them); results stay in call order. */
  readonly maxParallelToolCalls?: number;
  /** Tool messages longer than this many UTF-8 bytes are cut, with a marker (default 16 384, at least 64; `null` turns it off). */
  readonly maxToolResultBytes?: number | null;
  /** Retries of failed requests (408, 409, 429, 5xx, network, timeout). */
  readonly retry?: RetryOptions;
  /** Compacts the history before a request when it would exceed a token budget. Off by default. */
  readonly compaction?: CompactionOptions;
  /** What to do when the model calls a tool that is not registered: end the loop (`'fail'`, default) or tell the model (`'return_to_model'`). */
  readonly onUnknownTool?: 'fail' | 'return_to_model';
  /** The session id given to tools in `context.sessionId` (default a random UUID). */
  readonly sessionId?: string;
  /** Extra request body fields (temperature, max_tokens, tool_choice, ...), sent with every request. */
  readonly parameters?: Readonly<Record<string, JsonValue>>;
  /**
   * A history to start from, such as what `messages()` returned earlier. A leading system
   * message is taken as the system prompt (or dropped when it repeats `systemPrompt`).
   */
  readonly messages?: readonly ChatMessage[];
  /**
   * OpenTelemetry spans, made when a tracer provider is registered with `@opentelemetry/api`
   * (an optional peer dependency, loaded only then): `invoke_agent` per submit, `chat {model}`
   * per model request; the registry adds `execute_tool {name}` per tool call. `false` makes
   * none; `recordContent` records message contents (default off). See the README.
   */
  readonly tracing?: false | LlmTracingOptions;
}

/** Options of one submit call. */
export interface SubmitOptions {
  /** Aborting it stops the request in flight and the running tools; the call rejects with `LlmError` `cancelled`. */
  readonly signal?: AbortSignal;
  /**
   * The trace id given to this call's tools in `context.traceId` (default a fresh UUID per
   * loop call); when the submit is traced, the trace id of its span instead.
   */
  readonly traceId?: string;
  /** The idle limit of this call's model requests, in milliseconds (overrides the provider's). */
  readonly idleTimeoutMs?: number;
  /** The total limit of each of this call's model requests, in milliseconds (overrides the provider's). */
  readonly timeoutMs?: number;
}

/** `LlmCycleOptions` checked, with every default filled in. */
export interface ResolvedCycleOptions {
  readonly provider: ChatProvider;
  readonly model: string;
  readonly system: SystemMessage | undefined;
  readonly history: ChatMessage[];
  readonly maxTurns: number;
  readonly toolTimeoutMs: number;
  readonly maxParallelToolCalls: number;
  readonly maxToolResultBytes: number | null;
  readonly retry: ResolvedRetryOptions;
  readonly compaction: ResolvedCompaction | undefined;
  readonly returnUnknownTool: boolean;
  readonly parameters: Readonly<Record<string, JsonValue>> | undefined;
  readonly sessionId: string;
  /** `undefined` when `tracing: false`. */
  readonly tracing: LlmTracingOptions | undefined;
}

/**
 * Checks `options` and fills in the defaults.
 * @throws {RangeError} for a number option out of range
 * @throws {TypeError} when `messages` starts with a system message other than `systemPrompt`
 */
export function resolveCycleOptions(options: LlmCycleOptions): ResolvedCycleOptions {
  const [first, ...rest] = options.messages ?? [];
  const saved = first?.role === 'system' ? first : undefined;
  if (
    saved !== undefined &&
    options.systemPrompt !== undefined &&
    saved.content !== options.systemPrompt
  ) {
    throw new TypeError(
      'LlmCycle: `messages` starts with a system message that differs from `systemPrompt`; give the system prompt once (either option).',
    );
  }
  return {
    provider: options.provider,
    model: options.model,
    system:
      options.systemPrompt === undefined
        ? saved
        : { role: 'system', content: options.systemPrompt },
    history:
      options.messages === undefined ? [] : saved === undefined ? [...options.messages] : rest,
    maxTurns: checked(
      'maxTurns',
      options.maxTurns ?? 10,
      (value) => Number.isInteger(value) && value >= 1,
      'an integer >= 1',
    ),
    toolTimeoutMs: checked(
      'toolTimeoutMs',
      options.toolTimeoutMs ?? 60_000,
      (value) => value > 0,
      '> 0',
    ),
    maxParallelToolCalls: checked(
      'maxParallelToolCalls',
      options.maxParallelToolCalls ?? Number.POSITIVE_INFINITY,
      (value) => (Number.isInteger(value) && value >= 1) || value === Number.POSITIVE_INFINITY,
      'an integer >= 1',
    ),
    // Below 64 bytes the truncation marker itself would not fit.
    maxToolResultBytes:
      options.maxToolResultBytes === null
        ? null
        : checked(
            'maxToolResultBytes',
            options.maxToolResultBytes ?? 16 * 1024,
            (value) => value >= 64,
            'at least 64 (room for the truncation marker) or null',
          ),
    retry: resolveRetryOptions(options.retry),
    compaction: resolveCompaction(options.compaction),
    returnUnknownTool: options.onUnknownTool === 'return_to_model',
    parameters: options.parameters,
    sessionId: options.sessionId ?? globalThis.crypto.randomUUID(),
    tracing: options.tracing === false ? undefined : (options.tracing ?? {}),
  };
}

function resolveCompaction(options: CompactionOptions | undefined): ResolvedCompaction | undefined {
  if (options === undefined) return undefined;
  return {
    maxTokens: checked('compaction.maxTokens', options.maxTokens, (value) => value > 0, '> 0'),
    strategy: options.strategy ?? dropOldestExchanges(),
    estimate: options.estimateTokens ?? estimateTokens,
  };
}

function checked(
  name: string,
  value: number,
  valid: (value: number) => boolean,
  rule: string,
): number {
  if (typeof value !== 'number' || !valid(value))
    throw new RangeError(`LlmCycle: ${name} must be ${rule}, got ${String(value)}.`);
  return value;
}
