import type { JsonValue } from '@agcore/tools-core';
import type { ChatProvider, Usage } from '../chat-provider.js';
import {
  type ClearOldResultsOptions,
  type ResolvedClearing,
  resolveBudget,
  type SpillOptions,
} from '../context/budget-options.js';
import type { ResultCut, TruncationOptions } from '../context/head-tail.js';
import type { ResolvedSpill } from '../context/spill.js';
import type { ResolvedToolSearch, ToolSearchOptions } from '../context/tool-search.js';
import type { ChatMessage, SystemMessage } from '../messages.js';
import type { LlmTracingOptions } from '../observability/tracing.js';
import { type ResolvedRetryOptions, type RetryOptions, resolveRetryOptions } from '../retry.js';
import type { ApprovalPolicy } from '../runs/approval.js';
import type { PendingRun, RunState } from '../runs/run-state.js';
import { checkRunState } from '../runs/run-state-check.js';
import { processRunStore, type RunOrigin, type RunStore } from '../runs/run-store.js';
import {
  type CompactionOptions,
  dropOldestExchanges,
  estimateTokens,
  type ResolvedCompaction,
} from './compaction.js';
import type { LoopDetectionOptions } from './loop-guard.js';
import { zeroUsage } from './run-counters.js';
import type { StopCondition } from './stop-conditions.js';

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
  /**
   * Tool messages longer than this many UTF-8 bytes are cut to it, marker included (default
   * 16 384, at least 64; `null` turns cutting off). A tool's result keeps its head and tail
   * (see `truncation`).
   */
  readonly maxToolResultBytes?: number | null;
  /**
   * How a long result is cut: `head` and `tail` bytes kept around a marker that says how many
   * bytes were cut (default: 3/4 head, 1/4 tail of what fits). `maxToolResultBytes` stays the
   * total: parts that do not fit it shrink in proportion. With both given and no
   * `maxToolResultBytes`, the limit is `head + tail + 256`.
   */
  readonly truncation?: TruncationOptions;
  /**
   * Keeps each result over the limit whole in a `ResultStore` (`true`: a `MemoryResultStore`)
   * and adds the built-in tool `read_result({ handle, offset?, length?, grep? })` to every tool
   * loop; the cut result's marker gives the handle. See the README for resumes elsewhere.
   */
  readonly spill?: true | SpillOptions;
  /**
   * Sends a tool result whole in the `keepTurns` requests after it arrived, then only its head
   * and a marker (keeping the `read_result` handle of a spilled result). `messages()` keeps
   * the whole history; only what is sent is cleared. Off by default.
   */
  readonly clearOldResults?: ClearOldResultsOptions;
  /**
   * Past `threshold` (a number of tools, or `{ bytes }` of definitions), a request sends only
   * the `alwaysOn` tools (names, tags or categories), the tools found so far and the built-in
   * `search_tools({ query })`, which returns the best matching definitions (BM25 over names,
   * descriptions and parameter names); tools found are sent from the next turn on. Off by default.
   */
  readonly toolSearch?: ToolSearchOptions;
  /** Retries of failed requests (408, 409, 429, 5xx, network, timeout). */
  readonly retry?: RetryOptions;
  /** Compacts the history before a request when it would exceed a token budget. Off by default. */
  readonly compaction?: CompactionOptions;
  /** What to do when the model calls a tool that is not registered: end the loop (`'fail'`, default) or tell the model (`'return_to_model'`). */
  readonly onUnknownTool?: 'fail' | 'return_to_model';
  /** The session id given to tools in `context.sessionId` (default a random UUID). */
  readonly sessionId?: string;
  /**
   * The id of the cycle's first run (default a random UUID; each later fresh submit starts a run
   * with a new one). A run is a submit and its resumes: its tools get `${runId}:${callId}` as
   * `context.idempotencyKey`. With a paused `state`, it must be the state's (or left out); with
   * a state at rest, it names the next run.
   */
  readonly runId?: string;
  /**
   * Where resumes are claimed: a resume claims `(runId, epoch)` before it runs anything, and a
   * refused claim is `LlmError` `state_conflict` (nothing runs). Default: one `MemoryRunStore`
   * for the whole process; a store shared by processes extends "at most once per claim" across
   * them. See the README.
   */
  readonly runStore?: RunStore;
  /** Extra request body fields (temperature, max_tokens, tool_choice, ...), sent with every request. */
  readonly parameters?: Readonly<Record<string, JsonValue>>;
  /**
   * A history to start from, such as what `messages()` returned earlier. A leading system
   * message is taken as the system prompt (or dropped when it repeats `systemPrompt`).
   */
  readonly messages?: readonly ChatMessage[];
  /**
   * Decides, per tool call, whether it runs (`'approve'`), waits for a person (`'ask'`: the run
   * pauses), or is refused (`{ deny: reason }`). Without one: `'ask'` when the tool's
   * `needsApproval` says so, else `'approve'`. A policy that throws or returns anything else
   * ends the submit with `callback_failed` (the history whole, no call of the turn run).
   */
  readonly approval?: ApprovalPolicy;
  /**
   * A state from `cycle.state()` (here or in another process) to go on from: its history, token
   * use and paused run. Not together with `messages`.
   */
  readonly state?: RunState;
  /**
   * A secret (at least 32 bytes) for HMAC-SHA-256: `state()` carries a `mac`, and a state given
   * to `state` must carry a valid one. Without it a state binds only its pending calls (hashes).
   */
  readonly stateSecret?: string | Uint8Array;
  /**
   * The same tool called with the same canonical arguments in more than `maxRepeats` turns of
   * one run is not run again (the model is told, `loop_detected`); if the model still insists in
   * the next turn, the submit ends with `LlmError` `loop_detected`. Identical calls in one
   * response are a fan-out and count once, so no submit ends on its first response. Default
   * `{ maxRepeats: 3 }`; `false`: off.
   */
  readonly loopDetection?: LoopDetectionOptions | false;
  /** Ends the tool loop gracefully after a tool turn when a condition holds (the response carries `stopReason`). */
  readonly stopWhen?: StopCondition | readonly StopCondition[];
  /**
   * OpenTelemetry spans, made when a tracer provider is registered with `@opentelemetry/api`
   * (an optional peer dependency, loaded only then): `invoke_agent` per submit and per resume, `chat {model}`
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
  /** How a tool's result is cut; `null` when results are not cut. */
  readonly resultCut: ResultCut | null;
  readonly spill: ResolvedSpill | undefined;
  readonly clearing: ResolvedClearing | undefined;
  readonly toolSearch: ResolvedToolSearch | undefined;
  readonly retry: ResolvedRetryOptions;
  readonly compaction: ResolvedCompaction | undefined;
  readonly returnUnknownTool: boolean;
  readonly parameters: Readonly<Record<string, JsonValue>> | undefined;
  readonly sessionId: string;
  /** The run the cycle starts with. */
  readonly run: RunOrigin;
  readonly runStore: RunStore;
  readonly usage: Usage;
  readonly pending: PendingRun | undefined;
  readonly approval: ApprovalPolicy | undefined;
  readonly stateSecret: string | Uint8Array | undefined;
  /** `undefined`: loop detection is off. */
  readonly maxRepeats: number | undefined;
  readonly stopWhen: readonly StopCondition[];
  /** `undefined` when `tracing: false`. */
  readonly tracing: LlmTracingOptions | undefined;
}

/**
 * Checks `options` and fills in the defaults.
 * @throws {RangeError} for a number option out of range, a `stateSecret` under 32 bytes
 * @throws {TypeError} when `messages` starts with a system message other than `systemPrompt`,
 * `state` comes with `messages`, another `sessionId` or (paused) another `runId`, a callback
 * option is not a function, `runId` is not a non-empty string, `runStore` has no `claim`
 * @throws {LlmError} `state_mismatch` for a `state` that is refused
 */
export function resolveCycleOptions(options: LlmCycleOptions): ResolvedCycleOptions {
  const stateSecret = checkSecret(options.stateSecret);
  const state = restoredState(options, stateSecret);
  const { system, history } = startingHistory(options, state?.messages ?? options.messages);
  const budget = resolveBudget(options);
  return {
    provider: options.provider,
    model: options.model,
    system,
    history,
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
    maxToolResultBytes: budget.resultCut?.limit ?? null,
    ...budget,
    retry: resolveRetryOptions(options.retry),
    compaction: resolveCompaction(options.compaction),
    returnUnknownTool: options.onUnknownTool === 'return_to_model',
    parameters: options.parameters,
    sessionId: state?.sessionId ?? options.sessionId ?? globalThis.crypto.randomUUID(),
    run: startingRun(options.runId, state),
    runStore: resolveRunStore(options.runStore),
    usage: state?.usage ?? zeroUsage,
    pending: state?.pending ?? undefined,
    approval: callback('approval', options.approval),
    stateSecret,
    maxRepeats: resolveLoopDetection(options.loopDetection),
    stopWhen: resolveStopWhen(options.stopWhen),
    tracing: options.tracing === false ? undefined : withProviderName(options),
  };
}

/** The system message and the history to start from (`messages`, or the state's). */
function startingHistory(
  options: LlmCycleOptions,
  given: readonly ChatMessage[] | undefined,
): { system: SystemMessage | undefined; history: ChatMessage[] } {
  const [first, ...rest] = given ?? [];
  const saved = first?.role === 'system' ? first : undefined;
  if (
    saved !== undefined &&
    options.systemPrompt !== undefined &&
    saved.content !== options.systemPrompt
  ) {
    throw new TypeError(
      'LlmCycle: `messages` (or the history of `state`) starts with a system message that differs from `systemPrompt`; give the system prompt once.',
    );
  }
  return {
    system:
      options.systemPrompt === undefined
        ? saved
        : { role: 'system', content: options.systemPrompt },
    history: given === undefined ? [] : saved === undefined ? [...given] : rest,
  };
}

/** The state to restore, checked (a copy: the caller's object is never kept). */
function restoredState(
  options: LlmCycleOptions,
  secret: string | Uint8Array | undefined,
): RunState | undefined {
  if (options.state === undefined) return undefined;
  if (options.messages !== undefined) {
    throw new TypeError(
      'LlmCycle: give `messages` or `state`, not both (a state holds its own history).',
    );
  }
  const state = checkRunState(options.state, secret);
  if (options.sessionId !== undefined && options.sessionId !== state.sessionId) {
    throw new TypeError(
      `LlmCycle: \`sessionId\` (${options.sessionId}) differs from the state's (${state.sessionId}); leave it out to keep the state's.`,
    );
  }
  return state;
}

/** The run a cycle starts with: a state's paused run, the given id, or a new one. */
function startingRun(given: unknown, state: RunState | undefined): RunOrigin {
  if (given !== undefined && (typeof given !== 'string' || given === '')) {
    throw new TypeError(
      `LlmCycle: runId must be a non-empty string, got ${given === '' ? 'an empty string' : typeof given}.`,
    );
  }
  if (state !== undefined && (state.pending !== null || given === undefined)) {
    if (given !== undefined && given !== state.runId) {
      throw new TypeError(
        `LlmCycle: \`runId\` (${given}) differs from the paused run's (${state.runId}); leave it out to go on with the state's run.`,
      );
    }
    return { runId: state.runId, epoch: state.epoch, used: true };
  }
  return { runId: given ?? globalThis.crypto.randomUUID(), epoch: 0, used: false };
}

function resolveRunStore(store: RunStore | undefined): RunStore {
  if (store === undefined) return processRunStore();
  let claim: unknown;
  try {
    claim = typeof store === 'object' && store !== null ? store.claim : undefined;
  } catch {
    claim = undefined; // A throwing getter: no usable claim method.
  }
  if (typeof claim !== 'function') {
    throw new TypeError('LlmCycle: runStore must be an object with a claim(runId, epoch) method.');
  }
  return store;
}

function checkSecret(secret: unknown): string | Uint8Array | undefined {
  if (secret === undefined) return undefined;
  const bytes =
    typeof secret === 'string'
      ? new TextEncoder().encode(secret).length
      : secret instanceof Uint8Array
        ? secret.length
        : -1;
  if (bytes < 0) throw new TypeError('LlmCycle: stateSecret must be a string or a Uint8Array.');
  if (bytes < 32) {
    throw new RangeError(
      `LlmCycle: stateSecret must be at least 32 bytes (an HMAC-SHA-256 key), got ${bytes}; use e.g. 32 random bytes as hex.`,
    );
  }
  return secret as string | Uint8Array;
}

function callback<T>(name: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(`LlmCycle: ${name} must be a function, got ${typeof value}.`);
  }
  return value;
}

function resolveLoopDetection(
  option: LoopDetectionOptions | false | undefined,
): number | undefined {
  if (option === false) return undefined;
  if (option === undefined) return 3;
  if (typeof option !== 'object' || option === null) {
    throw new TypeError('LlmCycle: loopDetection must be { maxRepeats } or false.');
  }
  return checked(
    'loopDetection.maxRepeats',
    option.maxRepeats,
    (value) => Number.isSafeInteger(value) && value >= 1,
    'an integer >= 1',
  );
}

function resolveStopWhen(
  option: StopCondition | readonly StopCondition[] | undefined,
): readonly StopCondition[] {
  if (option === undefined) return [];
  const list = typeof option === 'function' ? [option] : option;
  if (!Array.isArray(list) || list.some((condition) => typeof condition !== 'function')) {
    throw new TypeError('LlmCycle: stopWhen must be a stop condition or an array of them.');
  }
  return [...list];
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

/** The tracing options, `providerName` defaulting to the provider's own (`anthropic`, ...). */
function withProviderName(options: LlmCycleOptions): LlmTracingOptions {
  const tracing = options.tracing === false ? {} : (options.tracing ?? {});
  const own = options.provider.providerName;
  return tracing.providerName === undefined && typeof own === 'string' && own !== ''
    ? { ...tracing, providerName: own }
    : tracing;
}
