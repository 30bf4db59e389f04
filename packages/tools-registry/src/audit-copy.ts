import {
  awaitInput,
  describeThrown,
  type JsonValue,
  maxJsonDepth,
  ToolError,
  toJsonPreview,
} from '@agcore/tools-core';
import type { ToolInvocation, ToolOutput } from './tool-invocation.js';

/** No cut but the depth: the hook gets the whole value, as JSON would write it. */
const wholeValue = {
  maxStringLength: Number.POSITIVE_INFINITY,
  maxItems: Number.POSITIVE_INFINITY,
  maxValues: Number.POSITIVE_INFINITY,
  maxDepth: maxJsonDepth,
};

/**
 * The copy of an invocation the audit hook gets: frozen all the way down and sharing no object
 * with what the caller, the model and the stream events read, so that whatever the hook writes
 * (or tries to) changes nothing but its own copy.
 *
 * `input` and `output.value` are the JSON view of the value (what `JSON.stringify` writes and
 * the model reads: `toJSON` applied, a `Date` as its ISO string, `undefined` properties left
 * out), made by `toJsonPreview` with no cut but a depth of `maxJsonDepth`; what JSON cannot
 * hold (a cycle or a throwing getter in arguments given to `invoke`) reads as its marker
 * string. `output.error` is a frozen `ToolError` with the same code, message, tool name and
 * stack, its `cause` a frozen copy. `output.awaitingInput` is rebuilt with a copy of its
 * data. Never throws.
 */
export function auditCopy(invocation: ToolInvocation): ToolInvocation {
  return Object.freeze({
    ...invocation,
    // Arguments given as `undefined` stay so (JSON writes nothing for them either).
    input: invocation.input === undefined ? undefined : frozenJson(invocation.input),
    output: copyOutput(invocation.output),
  });
}

function copyOutput(output: ToolOutput): ToolOutput {
  if (output.ok) return Object.freeze({ ok: true, value: frozenJson(output.value) });
  const error = copyError(output.error);
  if (output.awaitingInput === undefined) return Object.freeze({ ok: false, error });
  try {
    const { prompt, data } = output.awaitingInput;
    const awaitingInput = awaitInput(
      data === undefined ? { prompt } : { prompt, data: frozenJson(data) },
    );
    return Object.freeze({ ok: false, error, awaitingInput });
  } catch {
    // Not reached for a request the registry rebuilt; the error still explains the call.
    return Object.freeze({ ok: false, error });
  }
}

/** A frozen `ToolError` like `error`; one that cannot be read gives one that says so. */
function copyError(error: ToolError): ToolError {
  let copy: ToolError;
  try {
    const { code, message, toolName, cause, stack } = error;
    copy = new ToolError(code, String(message), {
      ...(toolName === undefined ? {} : { toolName: String(toolName) }),
      ...(cause === undefined ? {} : { cause: copyCause(cause) }),
    });
    if (typeof stack === 'string') copy.stack = stack;
  } catch (thrown) {
    copy = new ToolError('other', `The call's error cannot be read: ${describeThrown(thrown)}.`);
  }
  return Object.freeze(copy);
}

/** How many `cause`s of a cause are copied (the rest are left out). */
const maxCauseDepth = 8;

/**
 * An `Error` as a frozen error of the same prototype with its message, stack, own `name`,
 * own fields (as frozen JSON) and `cause` (to `maxCauseDepth`); anything else as frozen JSON.
 */
function copyCause(cause: unknown, depth = 0): unknown {
  if (!(cause instanceof Error)) return frozenJson(cause);
  const copy = new Error(describeThrown(cause));
  try {
    Object.setPrototypeOf(copy, Object.getPrototypeOf(cause));
    if (typeof cause.stack === 'string') copy.stack = cause.stack;
    if (Object.hasOwn(cause, 'name')) copy.name = String(cause.name);
    for (const key of Object.keys(cause)) {
      if (key === 'message' || key === 'stack' || key === 'name') continue;
      const field = (cause as unknown as Record<string, unknown>)[key];
      (copy as unknown as Record<string, unknown>)[key] =
        key === 'cause' ? copyNested(field, depth) : frozenJson(field);
    }
    if (Object.hasOwn(cause, 'cause') && !Object.hasOwn(copy, 'cause')) {
      Object.defineProperty(copy, 'cause', {
        value: copyNested(cause.cause, depth),
        writable: true,
        configurable: true,
      });
    }
  } catch {
    // What was copied before the throw is what is known of it.
  }
  return Object.freeze(copy);
}

function copyNested(cause: unknown, depth: number): unknown {
  return depth + 1 >= maxCauseDepth ? '[…]' : copyCause(cause, depth + 1);
}

/** The JSON view of `value`, every object and array of it frozen. Never throws. */
function frozenJson(value: unknown): JsonValue {
  // A string, a boolean or a finite number is its own JSON view (most results are one).
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const copy = toJsonPreview(value, wholeValue);
  const pending: unknown[] = [copy];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null) continue;
    Object.freeze(item);
    for (const child of Object.values(item)) {
      if (typeof child === 'object' && child !== null) pending.push(child);
    }
  }
  return copy;
}
