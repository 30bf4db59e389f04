import { describeNonJson, describeThrown, type JsonValue } from '@agcore/tools-core';
import { LlmError } from '../llm-error.js';
import type { AssistantMessage, ToolCall } from '../messages.js';
import { bindingHash, macMatches } from './run-seal.js';
import type { PendingCall, RunState } from './run-state.js';

/** Something wrong with a state: where, and what. */
class Refusal extends Error {}

type Record_ = Readonly<Record<string, unknown>>;

const hex64 = /^[0-9a-f]{64}$/;

/**
 * Checks a state given to `new LlmCycle({ state })` and returns it: its shape (no field
 * missing, none unknown outside the messages, `version` 1), that the pending calls are exactly
 * the calls of the paused answer not yet answered, that each pending call still hashes to its
 * `hash`, and the HMAC when `secret` is given (a state with a `mac` needs the secret). What it
 * returns is a copy made through JSON.
 * @throws {LlmError} `state_mismatch` naming what is wrong; nothing was run
 */
export function checkRunState(given: unknown, secret: string | Uint8Array | undefined): RunState {
  try {
    // A copy through JSON: what is kept is plain data, whatever getters or proxies were given.
    const text = JSON.stringify(given);
    if (text === undefined) throw new Refusal(`it is ${describeThrown(given)}, not JSON`);
    const value: unknown = JSON.parse(text);
    const state = object(
      value,
      'the state',
      ['version', 'sessionId', 'runId', 'epoch', 'messages', 'usage', 'pending'],
      ['mac'],
    );
    if (state.version !== 1) {
      throw new Refusal(
        `its version is ${JSON.stringify(state.version) ?? describeThrown(state.version)}; this @agcore/llm-cycle reads version 1`,
      );
    }
    nonEmptyString(state.sessionId, 'sessionId');
    nonEmptyString(state.runId, 'runId');
    count(state.epoch, 'epoch', 0);
    messages(state.messages);
    usage(state.usage, 'usage');
    if (state.pending !== null) pending(state.pending);
    seal(state, secret);
    return value as RunState;
  } catch (error) {
    if (LlmError.isInstance(error)) throw error;
    const reason = error instanceof Refusal ? error.message : describeThrown(error);
    throw new LlmError(
      'state_mismatch',
      `The run state was refused: ${reason}. Nothing was run; restore a state exactly as cycle.state() gave it.`,
      { cause: error },
    );
  }
}

function seal(state: Record_, secret: string | Uint8Array | undefined): void {
  const { mac, ...rest } = state;
  if (secret === undefined) {
    if (mac !== undefined) {
      throw new Refusal(
        'it carries a mac (it was sealed with stateSecret); pass the same stateSecret to restore it',
      );
    }
    return;
  }
  if (typeof mac !== 'string' || !hex64.test(mac)) {
    throw new Refusal(
      'stateSecret is set but the state carries no valid mac (HMAC-SHA-256, 64 hex digits)',
    );
  }
  if (!macMatches(rest, mac, secret)) {
    throw new Refusal(
      'its HMAC does not match: it was altered, or sealed with another stateSecret',
    );
  }
}

function pending(value: unknown): void {
  const run = object(
    value,
    'pending',
    ['turns', 'toolCalls', 'usage', 'response', 'results', 'calls', 'repeats'],
    [],
  );
  count(run.turns, 'pending.turns', 1);
  count(run.toolCalls, 'pending.toolCalls', 0);
  usage(run.usage, 'pending.usage');
  const response = object(
    run.response,
    'pending.response',
    ['id', 'model', 'message', 'finishReason'],
    ['usage', 'reasoning'],
  );
  for (const key of ['id', 'model', 'finishReason'] as const)
    string(response[key], `pending.response.${key}`);
  if (response.usage !== undefined) usage(response.usage, 'pending.response.usage');
  if (response.reasoning !== undefined) string(response.reasoning, 'pending.response.reasoning');
  assistant(response.message, 'pending.response.message');
  const calls = (response.message as AssistantMessage).tool_calls ?? [];
  if (calls.length === 0) throw new Refusal('pending.response.message has no tool calls');
  const byId = new Map<string, ToolCall>();
  for (const call of calls) {
    if (byId.has(call.id))
      throw new Refusal(
        `pending.response.message has two calls with the id ${JSON.stringify(call.id)}`,
      );
    byId.set(call.id, call);
  }
  const answered = new Set<string>();
  for (const [index, item] of array(run.results, 'pending.results').entries()) {
    const result = object(item, `pending.results[${index}]`, ['callId', 'content'], []);
    string(result.content, `pending.results[${index}].content`);
    claim(result.callId, `pending.results[${index}].callId`, byId, answered);
  }
  const waiting = array(run.calls, 'pending.calls');
  if (waiting.length === 0)
    throw new Refusal('pending.calls is empty: a paused run waits on at least one call');
  for (const [index, item] of waiting.entries())
    pendingCall(item, `pending.calls[${index}]`, byId, answered);
  if (answered.size !== byId.size) {
    const missing = [...byId.keys()].filter((id) => !answered.has(id));
    throw new Refusal(
      `the calls ${missing.map((id) => JSON.stringify(id)).join(', ')} of the paused answer are neither answered nor pending`,
    );
  }
  const seen = new Set<string>();
  for (const [index, item] of array(run.repeats, 'pending.repeats').entries()) {
    const where = `pending.repeats[${index}]`;
    const pair = array(item, where);
    if (pair.length !== 2 || typeof pair[0] !== 'string' || !hex64.test(pair[0])) {
      throw new Refusal(`${where} is not a [SHA-256 hex, count] pair`);
    }
    count(pair[1], `${where}[1]`, 1);
    if (seen.has(pair[0])) throw new Refusal(`${where} repeats a key`);
    seen.add(pair[0]);
  }
}

function pendingCall(
  value: unknown,
  where: string,
  byId: ReadonlyMap<string, ToolCall>,
  answered: Set<string>,
): void {
  const call = object(value, where, ['kind', 'callId', 'toolName', 'hash'], ['prompt', 'data']);
  const tool = claim(call.callId, `${where}.callId`, byId, answered);
  if (call.toolName !== tool.function.name) {
    throw new Refusal(
      `${where}.toolName is not the name of call ${JSON.stringify(tool.id)} in the paused answer`,
    );
  }
  if (call.kind === 'approval') {
    if (call.prompt !== undefined || call.data !== undefined) {
      throw new Refusal(`${where} awaits approval but carries a prompt or data`);
    }
  } else if (call.kind === 'input') {
    nonEmptyString(call.prompt, `${where}.prompt`);
    if (call.data !== undefined && describeNonJson(call.data) !== undefined) {
      throw new Refusal(`${where}.data is not JSON`);
    }
  } else {
    throw new Refusal(`${where}.kind is ${describeThrown(call.kind)}, not 'approval' or 'input'`);
  }
  if (typeof call.hash !== 'string' || !hex64.test(call.hash)) {
    throw new Refusal(`${where}.hash is not a SHA-256 (64 hex digits)`);
  }
  let input: JsonValue;
  try {
    input = JSON.parse(tool.function.arguments) as JsonValue;
  } catch {
    throw new Refusal(`the arguments of pending call ${JSON.stringify(tool.id)} are not JSON`);
  }
  const pendingCall = call as unknown as PendingCall;
  const hash = bindingHash({
    kind: pendingCall.kind,
    callId: pendingCall.callId,
    toolName: pendingCall.toolName,
    arguments: input,
    ...(pendingCall.prompt === undefined ? {} : { prompt: pendingCall.prompt }),
    ...(pendingCall.data === undefined ? {} : { data: pendingCall.data }),
  });
  if (hash !== call.hash) {
    throw new Refusal(
      `pending call ${JSON.stringify(tool.id)} (${tool.function.name}) does not match its hash: its arguments${pendingCall.kind === 'input' ? ', prompt or data' : ''} were altered since the run paused`,
    );
  }
}

/** Marks `id` as taken by one answer or pending call; returns the call it names. */
function claim(
  id: unknown,
  where: string,
  byId: ReadonlyMap<string, ToolCall>,
  taken: Set<string>,
): ToolCall {
  string(id, where);
  const call = byId.get(id as string);
  if (call === undefined)
    throw new Refusal(`${where} ${JSON.stringify(id)} is not a call of the paused answer`);
  if (taken.has(id as string))
    throw new Refusal(`${where}: call ${JSON.stringify(id)} is listed twice`);
  taken.add(id as string);
  return call;
}

/**
 * The history: an array of messages of the four roles with their fields of the right types.
 * Fields a provider added beside them are kept (they are the conversation's own data).
 */
function messages(value: unknown): void {
  for (const [index, message] of array(value, 'messages').entries()) {
    const where = `messages[${index}]`;
    const item = object(message, where, ['role'], null);
    switch (item.role) {
      case 'system':
        if (index !== 0) throw new Refusal(`${where} is a system message after the first`);
        string(item.content, `${where}.content`);
        break;
      case 'user':
        if (typeof item.content !== 'string') array(item.content, `${where}.content`);
        break;
      case 'assistant':
        assistant(item, where);
        break;
      case 'tool':
        string(item.tool_call_id, `${where}.tool_call_id`);
        string(item.content, `${where}.content`);
        break;
      default:
        throw new Refusal(`${where}.role is ${describeThrown(item.role)}`);
    }
  }
}

function assistant(value: unknown, where: string): void {
  const message = object(value, where, ['role', 'content'], null);
  if (message.role !== 'assistant') throw new Refusal(`${where} is not an assistant message`);
  if (message.content !== null) string(message.content, `${where}.content`);
  if (message.tool_calls === undefined) return;
  for (const [index, item] of array(message.tool_calls, `${where}.tool_calls`).entries()) {
    const at = `${where}.tool_calls[${index}]`;
    const call = object(item, at, ['id', 'type', 'function'], []);
    nonEmptyString(call.id, `${at}.id`);
    if (call.type !== 'function') throw new Refusal(`${at}.type is not 'function'`);
    const fn = object(call.function, `${at}.function`, ['name', 'arguments'], []);
    string(fn.name, `${at}.function.name`);
    string(fn.arguments, `${at}.function.arguments`);
  }
}

/** The optional counts of `Usage` (a native provider's cache and reasoning tokens). */
const optionalUsage = ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;

function usage(value: unknown, where: string): void {
  const item = object(
    value,
    where,
    ['promptTokens', 'completionTokens', 'totalTokens'],
    optionalUsage,
  );
  for (const key of ['promptTokens', 'completionTokens', 'totalTokens', ...optionalUsage]) {
    const amount = item[key];
    if (amount === undefined && (optionalUsage as readonly string[]).includes(key)) continue;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
      throw new Refusal(`${where}.${key} is ${describeThrown(amount)}, not a number >= 0`);
    }
  }
}

/**
 * A plain object with every `required` key (own properties); with `optional` given, no other
 * key; with `null`, other keys are allowed.
 */
function object(
  value: unknown,
  where: string,
  required: readonly string[],
  optional: readonly string[] | null,
): Record_ {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Refusal(
      `${where} is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not an object`,
    );
  }
  const record = value as Record_;
  const missing = required.filter((key) => !Object.hasOwn(record, key));
  if (missing.length > 0) throw new Refusal(`${where} has no ${missing.join(', ')}`);
  if (optional !== null) {
    const known = new Set([...required, ...optional]);
    const extra = Object.keys(record).filter((key) => !known.has(key));
    if (extra.length > 0)
      throw new Refusal(
        `${where} has unknown fields: ${extra.map((key) => JSON.stringify(key)).join(', ')}`,
      );
  }
  return record;
}

function array(value: unknown, where: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new Refusal(`${where} is not an array`);
  return value;
}

function string(value: unknown, where: string): void {
  if (typeof value !== 'string') throw new Refusal(`${where} is not a string`);
}

function nonEmptyString(value: unknown, where: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw new Refusal(`${where} is not a non-empty string`);
}

function count(value: unknown, where: string, min: number): void {
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw new Refusal(`${where} is ${describeThrown(value)}, not an integer >= ${min}`);
  }
}
