import { describeNonJson, type JsonValue } from './json.js';

const brand: unique symbol = Symbol.for('@agcore/tools-core.AwaitingInput');

/**
 * What a tool returns instead of its result when it needs an answer from a person before it
 * can finish (the design's `ToolOutput::AwaitingInput`): made by `awaitInput`, recognised by
 * `isAwaitingInput`. It is JSON-shaped (`{ prompt, data }`) so that a tool may return it where
 * its result goes, but the brand that marks it is a symbol: no JSON a server or a model sends
 * can pass for one.
 */
export type AwaitingInput = {
  /** The question for the person, e.g. "A transfer of 9 000 € looks suspicious: freeze the account?". */
  readonly prompt: string;
  /** What the tool wants back with the answer (`context.input.data`); JSON. */
  readonly data?: JsonValue;
  readonly [brand]: true;
};

/** What `awaitInput` takes. */
export interface AwaitInputOptions {
  /** The question; a non-empty string. */
  readonly prompt: string;
  /** Anything the tool wants back with the answer, as JSON (kept in a paused run's state). */
  readonly data?: JsonValue;
}

/**
 * Asks a person a question instead of returning a result: return this from `execute`. Whoever
 * runs the tool (`LlmCycle` pauses the run with an `Interruption` of kind `input`) calls the
 * tool again, with the same arguments and `context.input = { value, data }`.
 *
 * @throws {TypeError} when `prompt` is not a non-empty string or `data` is not JSON.
 *
 * @example
 * execute: async ({ amount }, context) => {
 *   if (amount > 5000 && context.input === undefined)
 *     return awaitInput({ prompt: `Transfer ${amount} €?`, data: { amount } });
 *   return context.input?.value === 'yes' ? transfer(amount) : { cancelled: true };
 * }
 */
export function awaitInput(options: AwaitInputOptions): AwaitingInput {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('awaitInput: pass { prompt, data? }.');
  }
  const { prompt, data } = options;
  if (typeof prompt !== 'string' || prompt.length === 0) {
    throw new TypeError(
      `awaitInput: prompt must be a non-empty string (the question for a person), got ${typeof prompt === 'string' ? 'an empty string' : typeof prompt}.`,
    );
  }
  if (data !== undefined) {
    const problem = describeNonJson(data);
    if (problem !== undefined) {
      throw new TypeError(
        `awaitInput: data must be JSON (it is kept in a paused run's state), but data${problem.slice(1)}.`,
      );
    }
  }
  const request = { prompt, ...(data === undefined ? {} : { data }) };
  Object.defineProperty(request, brand, { value: true });
  return Object.freeze(request) as AwaitingInput;
}

/**
 * Whether `value` was made by `awaitInput` (of any copy of this package in the process).
 * Never throws, even for a proxy whose traps throw (that is none).
 */
export function isAwaitingInput(value: unknown): value is AwaitingInput {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return (value as { [brand]?: unknown })[brand] === true;
  } catch {
    return false;
  }
}
