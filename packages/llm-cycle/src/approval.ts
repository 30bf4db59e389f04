import {
  type AnyTool,
  createToolContext,
  describeThrown,
  type JsonValue,
  ToolError,
} from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import { LlmError } from './llm-error.js';
import type { LoopGuard, LoopVerdict } from './loop-guard.js';
import type { PreparedCall, ToolTurn } from './tool-step.js';

/** A call the approval policy decides on. */
export interface ApprovalRequest {
  readonly toolName: string;
  readonly callId: string;
  /** The arguments, parsed and checked against the tool's schema. */
  readonly input: JsonValue;
  /** The registered tool. */
  readonly tool: AnyTool;
  /** What the tool's own `needsApproval` says about this call (`false` when it has none). */
  readonly needsApproval: boolean;
}

/** Run the call (`'approve'`), pause the run for a person (`'ask'`), or refuse it with a reason the model reads. */
export type ApprovalDecision = 'approve' | 'ask' | { readonly deny: string };

/** Decides, per call, whether it runs, waits for a person, or is refused. */
export type ApprovalPolicy = (
  request: ApprovalRequest,
) => ApprovalDecision | Promise<ApprovalDecision>;

/** What deciding the calls of a turn needs. */
export interface PlanContext {
  readonly registry: ToolRegistry;
  readonly policy: ApprovalPolicy | undefined;
  readonly guard: LoopGuard;
  readonly sessionId: string;
  readonly traceId: string;
  readonly signal: AbortSignal;
}

/** What becomes of each call of a turn: run now, answered without running, or waiting. */
export interface TurnPlan {
  readonly run: number[];
  readonly answers: Map<number, ToolError>;
  readonly ask: number[];
  /** A tool the model kept calling after it was refused: the run ends after this turn. */
  loopStop?: string;
}

/**
 * Decides the calls of a fresh turn, in call order: the loop guard first (identical calls of
 * the turn count once, a fan-out is no loop; a refused call is answered `loop_detected`), then
 * — only for calls that involve approval (a policy is set, or the tool has `needsApproval`) —
 * the registry's checks (a call that could not run is answered
 * with the registry's error, no person is asked), the tool's `needsApproval`, then the policy.
 * Synchronous when no call involves approval (the common case costs no asynchronous step).
 * @throws {LlmError} `callback_failed` when the policy throws or returns something that is not
 * a decision; `cancelled` when `signal` aborts while it decides
 */
export function planTurn(turn: ToolTurn, context: PlanContext): TurnPlan | Promise<TurnPlan> {
  const plan: TurnPlan = { run: [], answers: new Map(), ask: [] };
  const later: number[] = [];
  const verdicts = context.guard.admitTurn(
    turn.calls.map((entry) => ({ toolName: entry.call.function.name, input: entry.input })),
  );
  for (let position = 0; position < turn.calls.length; position++) {
    const entry = turn.calls[position] as PreparedCall;
    const name = entry.call.function.name;
    const loop = verdicts[position] as LoopVerdict;
    if (loop !== 'run') {
      plan.answers.set(position, context.guard.refusal(name));
      if (loop === 'stop') plan.loopStop ??= name;
    } else if (entry.parseError !== undefined) {
      plan.answers.set(position, entry.parseError);
    } else if (context.policy === undefined && !involvesApproval(context.registry.get(name))) {
      plan.run.push(position);
    } else later.push(position);
  }
  return later.length === 0 ? plan : decide(plan, later, turn, context);
}

function involvesApproval(tool: AnyTool | undefined): boolean {
  if (tool === undefined) return false;
  try {
    const needs = tool.needsApproval;
    return needs !== undefined && needs !== false;
  } catch {
    return true; // A throwing getter: the careful path reports it on the call.
  }
}

async function decide(
  plan: TurnPlan,
  positions: readonly number[],
  turn: ToolTurn,
  context: PlanContext,
): Promise<TurnPlan> {
  for (const position of positions) {
    const entry = turn.calls[position] as PreparedCall;
    const name = entry.call.function.name;
    // A call that could not run is answered with what invoke would say (nobody is asked),
    // without invoking: a tool registered meanwhile never runs unasked.
    const refused = context.registry.checkCall(name, entry.input);
    if (refused !== undefined) {
      plan.answers.set(position, refused);
      continue;
    }
    const tool = context.registry.get(name) as AnyTool;
    const needs = await ownVerdict(tool, entry, context);
    if (typeof needs !== 'boolean') {
      plan.answers.set(position, needs);
      continue;
    }
    const decision =
      context.policy === undefined
        ? needs
          ? 'ask'
          : 'approve'
        : await askPolicy(context, {
            toolName: name,
            callId: entry.call.id,
            input: entry.input as JsonValue,
            tool,
            needsApproval: needs,
          });
    if (decision === 'approve') plan.run.push(position);
    else if (decision === 'ask') plan.ask.push(position);
    else plan.answers.set(position, denied(name, decision.deny));
  }
  plan.run.sort((a, b) => a - b);
  return plan;
}

/** The tool's own `needsApproval` for a call, or the error that answers the call when it fails. */
async function ownVerdict(
  tool: AnyTool,
  entry: PreparedCall,
  context: PlanContext,
): Promise<boolean | ToolError> {
  const name = entry.call.function.name;
  try {
    const needs: unknown = tool.needsApproval;
    if (typeof needs !== 'function') return needs === true;
    const verdict: unknown = await untilAborted(
      (needs as (args: unknown, context: unknown) => unknown).call(
        tool,
        entry.input,
        createToolContext({
          sessionId: context.sessionId,
          traceId: context.traceId,
          toolCallId: entry.call.id,
          signal: context.signal,
        }),
      ),
      context.signal,
    );
    if (typeof verdict === 'boolean') return verdict;
    return new ToolError(
      'execution_failed',
      `Tool '${name}' could not tell whether this call needs approval: its needsApproval returned ${describeThrown(verdict)}, not a boolean. The call was not run.`,
      { toolName: name },
    );
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (ToolError.isInstance(error)) return error;
    return new ToolError(
      'execution_failed',
      `Tool '${name}' could not tell whether this call needs approval (${describeThrown(error)}). The call was not run.`,
      { toolName: name, cause: error },
    );
  }
}

async function askPolicy(
  context: PlanContext,
  request: ApprovalRequest,
): Promise<ApprovalDecision> {
  const where = `call ${JSON.stringify(request.callId)} of tool '${request.toolName}'`;
  let decision: unknown;
  try {
    decision = await untilAborted(
      (context.policy as ApprovalPolicy)(Object.freeze(request)),
      context.signal,
    );
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw new LlmError(
      'callback_failed',
      `The approval policy threw for ${where}: ${describeThrown(error)}. No call of this turn was run; the history is whole. Fix the policy and submit again.`,
      { cause: error, toolName: request.toolName },
    );
  }
  const deny = readDeny(decision);
  if (decision === 'approve' || decision === 'ask' || deny !== undefined) {
    return deny === undefined ? (decision as 'approve' | 'ask') : { deny };
  }
  throw new LlmError(
    'callback_failed',
    `The approval policy returned ${describeThrown(decision)} for ${where}, which is not 'approve', 'ask' or { deny: reason }. No call of this turn was run; the history is whole.`,
    { toolName: request.toolName },
  );
}

/** The reason of a `{ deny: reason }` decision (read without letting a hostile object throw). */
export function readDeny(decision: unknown): string | undefined {
  if (typeof decision !== 'object' || decision === null) return undefined;
  try {
    const keys = Object.keys(decision);
    const reason: unknown = (decision as { deny?: unknown }).deny;
    return keys.length === 1 && keys[0] === 'deny' && typeof reason === 'string'
      ? reason
      : undefined;
  } catch {
    return undefined;
  }
}

/** The tool message of a denied call: `Error [denied]: reason`. */
export function denied(toolName: string, reason: string): ToolError {
  return new ToolError(
    'denied',
    reason.trim() === '' ? `The call of tool '${toolName}' was denied.` : reason,
    {
      toolName,
    },
  );
}

/**
 * `promise`, or a rejection with the signal's reason as soon as `signal` aborts (a policy that
 * waits for a person must not hold a cancelled submit).
 */
function untilAborted<T>(value: T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  // Adopts any thenable; a throwing `then` getter becomes a rejection.
  const promise = Promise.resolve(value);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
