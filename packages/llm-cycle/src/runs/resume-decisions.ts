import {
  describeNonJson,
  describeThrown,
  type JsonValue,
  type ToolError,
  type ToolInputAnswer,
} from '@agcore/tools-core';
import type { PreparedCall, TurnCalls, Waiting } from '../turn-types.js';
import { denied, readDeny } from './approval.js';

/** What `resume` does with each pending call of the paused turn. */
export interface ResumePlan {
  readonly run: number[];
  readonly inputs: Map<number, ToolInputAnswer>;
  readonly answers: Map<number, ToolError>;
}

/**
 * Reads the decisions given to `resume` against the pending calls of `turn`: every pending call
 * needs one, and nothing else may be named (a call that already has its answer included).
 * Keys are read as own properties only, so a `__proto__` key from `JSON.parse` is a call id
 * like any other, and nothing is looked up on a prototype.
 * @throws {TypeError} naming the missing, unknown and malformed entries; nothing has run
 */
export function readDecisions(decisions: unknown, turn: TurnCalls): ResumePlan {
  if (typeof decisions !== 'object' || decisions === null || Array.isArray(decisions)) {
    throw new TypeError(
      `resume: decisions must be an object mapping each pending call id to 'approve', { deny: reason } or { input: value }, got ${Array.isArray(decisions) ? 'an array' : describeThrown(decisions)}.`,
    );
  }
  const pending = new Map<string, number>();
  for (const position of turn.pending()) {
    pending.set((turn.calls[position] as PreparedCall).call.id, position);
  }
  let keys: string[];
  try {
    keys = Object.keys(decisions);
  } catch (error) {
    throw new TypeError(`resume: the decisions cannot be read (${describeThrown(error)}).`);
  }
  const unknown = keys.filter((key) => !pending.has(key));
  const missing = [...pending.keys()].filter((id) => !Object.hasOwn(decisions, id));
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`no decision for ${names(missing)}`);
  if (unknown.length > 0) {
    problems.push(
      `${names(unknown)} ${unknown.length === 1 ? 'is' : 'are'} not pending (unknown, or already answered)`,
    );
  }
  const plan: ResumePlan = { run: [], inputs: new Map(), answers: new Map() };
  for (const [callId, position] of pending) {
    if (!Object.hasOwn(decisions, callId)) continue;
    const problem = readOne(decisions, callId, position, turn, plan);
    if (problem !== undefined) problems.push(`${JSON.stringify(callId)}: ${problem}`);
  }
  if (problems.length > 0) {
    throw new TypeError(
      `resume: ${problems.join('; ')}. Nothing was run; the run is still paused.`,
    );
  }
  plan.run.sort((a, b) => a - b);
  return plan;
}

function readOne(
  decisions: object,
  callId: string,
  position: number,
  turn: TurnCalls,
  plan: ResumePlan,
): string | undefined {
  const waiting = turn.waiting[position] as Waiting;
  const name = (turn.calls[position] as PreparedCall).call.function.name;
  let decision: unknown;
  try {
    decision = (decisions as Record<string, unknown>)[callId];
  } catch (error) {
    return `cannot be read (${describeThrown(error)})`;
  }
  const deny = readDeny(decision);
  if (deny !== undefined) {
    plan.answers.set(position, denied(name, deny));
    return undefined;
  }
  if (waiting.kind === 'approval') {
    if (decision === 'approve') {
      plan.run.push(position);
      return undefined;
    }
    return `awaits approval: give 'approve' or { deny: reason }, not ${describeThrown(decision)}`;
  }
  const input = readInput(decision);
  if (input === undefined) {
    return `awaits an answer to "${waiting.prompt}": give { input: value } (JSON) or { deny: reason }, not ${describeThrown(decision)}`;
  }
  plan.run.push(position);
  plan.inputs.set(position, {
    value: input,
    ...(waiting.data === undefined ? {} : { data: waiting.data }),
  });
  return undefined;
}

/** The value of an `{ input: value }` decision when it is JSON, else `undefined`. */
function readInput(decision: unknown): JsonValue | undefined {
  if (typeof decision !== 'object' || decision === null) return undefined;
  try {
    const keys = Object.keys(decision);
    if (keys.length !== 1 || keys[0] !== 'input') return undefined;
    const value: unknown = (decision as { input?: unknown }).input;
    return value !== undefined && describeNonJson(value) === undefined
      ? (value as JsonValue)
      : undefined;
  } catch {
    return undefined;
  }
}

function names(ids: readonly string[]): string {
  const shown = ids.slice(0, 10).map((id) => JSON.stringify(id));
  return `${ids.length === 1 ? 'call' : 'calls'} ${shown.join(', ')}${ids.length > 10 ? ` (and ${ids.length - 10} more)` : ''}`;
}
