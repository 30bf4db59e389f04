import {
  type AnyTool,
  createToolContext,
  describeThrown,
  type JsonValue,
  ToolError,
} from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import { LlmError } from '../llm-error.js';
import type { LoopVerdict, PreparedCall, TurnCalls, TurnGuard } from '../turn-types.js';
import { untilAborted } from './abortable.js';

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
  readonly guard: TurnGuard;
  readonly sessionId: string;
  /** The run's id: the check gets `${runId}:${callId}` as `context.idempotencyKey`. */
  readonly runId: string;
  readonly traceId: string;
  readonly signal: AbortSignal;
  /** The time limit of a tool call (`toolTimeoutMs`); a `needsApproval` function gets as long. */
  readonly timeoutMs: number;
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
export function planTurn(turn: TurnCalls, context: PlanContext): TurnPlan | Promise<TurnPlan> {
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
  turn: TurnCalls,
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

/**
 * The tool's own `needsApproval` for a call, or the error that answers the call when it fails:
 * it throws, returns what is not a boolean, or does not settle within the call's time limit
 * (`timeout`, as a tool that overran; its `context.signal` aborts then).
 */
async function ownVerdict(
  tool: AnyTool,
  entry: PreparedCall,
  context: PlanContext,
): Promise<boolean | ToolError> {
  const name = entry.call.function.name;
  let clock: CheckClock | undefined;
  try {
    const needs: unknown = tool.needsApproval;
    if (typeof needs !== 'function') return needs === true;
    clock = new CheckClock(name, context);
    const verdict: unknown = await clock.bound(
      (needs as (args: unknown, context: unknown) => unknown).call(
        tool,
        entry.input,
        createToolContext({
          sessionId: context.sessionId,
          traceId: context.traceId,
          toolCallId: entry.call.id,
          idempotencyKey: `${context.runId}:${entry.call.id}`,
          signal: clock.signal,
          ...(clock.deadline === undefined ? {} : { deadline: clock.deadline }),
        }),
      ),
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
  } finally {
    clock?.release();
  }
}

/** Longest delay `setTimeout` keeps (a longer one fires at once): beyond it, no timer. */
const maxTimerMs = 2_147_483_647;

/**
 * The clock of one `needsApproval` check: the call's time limit, and a signal that aborts when
 * the submit's does or the time runs out (with the `timeout` ToolError that answers the call).
 */
class CheckClock {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal;
  readonly #onAbort = (): void => this.#controller.abort(this.#parent.reason);
  readonly #timer: ReturnType<typeof setTimeout> | undefined;
  readonly deadline: number | undefined;
  readonly #expired: Promise<never> | undefined;

  constructor(name: string, context: PlanContext) {
    this.#parent = context.signal;
    this.#parent.addEventListener('abort', this.#onAbort, { once: true });
    const limit = context.timeoutMs;
    if (!(limit <= maxTimerMs)) return;
    this.deadline = Date.now() + limit;
    let expire: (error: ToolError) => void = () => {};
    this.#expired = new Promise<never>((_, reject) => {
      expire = reject;
    });
    this.#timer = setTimeout(() => {
      const error = new ToolError(
        'timeout',
        `Tool '${name}' did not say within ${limit} ms whether this call needs approval (its needsApproval did not settle), so the call was not run. Make needsApproval answer faster, or raise toolTimeoutMs.`,
        { toolName: name },
      );
      this.#controller.abort(error);
      expire(error);
    }, limit);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** `value`, or the submit's abort reason, or the `timeout` error: whichever comes first. */
  bound<T>(value: T | PromiseLike<T>): Promise<T> {
    const answer = untilAborted(value, this.#parent);
    return this.#expired === undefined ? answer : Promise.race([answer, this.#expired]);
  }

  release(): void {
    clearTimeout(this.#timer);
    this.#parent.removeEventListener('abort', this.#onAbort);
    // A late rejection of the race's loser must not be reported as unhandled.
    this.#expired?.catch(() => {});
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
