import { ToolError, type ToolInputAnswer } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatResponse } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { type PlanContext, planTurn, type TurnPlan } from '../runs/approval.js';
import type { StreamEvent } from '../stream-events.js';
import { EventQueue } from './event-queue.js';
import { turnComplete } from './submission.js';
import { type ToolStepSettings, ToolTurn } from './tool-step.js';

/**
 * One tool step of the loop: a turn and what becomes of each of its calls — run now (with a
 * person's answer for a call that asked), answered without running (denied, refused), or left
 * waiting (for approval).
 */
export interface Round {
  readonly registry: ToolRegistry;
  readonly turn: ToolTurn;
  /** The answer whose calls these are. */
  readonly response: ChatResponse;
  readonly run: readonly number[];
  readonly answers: ReadonlyMap<number, ToolError>;
  readonly ask: readonly number[];
  readonly inputs?: ReadonlyMap<number, ToolInputAnswer>;
  /** A fresh turn (`turn_complete` `tool_calls` follows its started events); `false` when resumed. */
  readonly fresh: boolean;
  /** A tool the model kept calling after it was refused: the run ends after this round. */
  readonly loopStop?: string;
}

/**
 * The round of a fresh turn: its calls decided (see `planTurn`; synchronous when no call
 * involves approval). When deciding fails (the policy threw, the caller cancelled), `onFail`
 * gets the turn with every call answered as not run, to commit it, and the error is thrown.
 */
export function planRound(
  response: ChatResponse,
  context: PlanContext,
  maxBytes: number | null,
  onFail: (turn: ToolTurn) => void,
): Round | Promise<Round> {
  const turn = new ToolTurn(response.message);
  let planned: TurnPlan | Promise<TurnPlan>;
  try {
    planned = planTurn(turn, context);
  } catch (error) {
    return failed(turn, error, maxBytes, onFail);
  }
  if (!(planned instanceof Promise)) return freshRound(planned, context.registry, turn, response);
  return planned.then(
    (plan) => freshRound(plan, context.registry, turn, response),
    (error: unknown) => failed(turn, error, maxBytes, onFail),
  );
}

function freshRound(
  plan: TurnPlan,
  registry: ToolRegistry,
  turn: ToolTurn,
  response: ChatResponse,
): Round {
  return {
    registry,
    turn,
    response,
    run: plan.run,
    answers: plan.answers,
    ask: plan.ask,
    fresh: true,
    ...(plan.loopStop === undefined ? {} : { loopStop: plan.loopStop }),
  };
}

function failed(
  turn: ToolTurn,
  error: unknown,
  maxBytes: number | null,
  onFail: (turn: ToolTurn) => void,
): never {
  const why = LlmError.isInstance(error) ? error.message : 'the call was cancelled';
  turn.closeUnanswered(
    (toolName) =>
      new ToolError('cancelled', `Tool '${toolName}' was not run: ${why}`, { toolName }),
    maxBytes,
  );
  onFail(turn);
  throw error;
}

/** The round's calls answered or left waiting, before any runs. */
function prepare(round: Round, settings: ToolStepSettings): void {
  if (round.answers.size > 0) {
    for (const [position, error] of round.answers) round.turn.answer(position, error, settings);
  }
  for (const position of round.ask) round.turn.ask(position);
}

/** The round, not streamed: resolves when every call that runs has settled. Never rejects. */
export async function runRound(round: Round, settings: ToolStepSettings): Promise<void> {
  prepare(round, settings);
  await round.turn.run(settings, round.run, round.inputs);
}

/**
 * The round, streamed: the calls start at once; their `tool_execution_started` events (and,
 * for a fresh turn, `turn_complete`) go first, then completions of answered calls, progress and
 * completions as they come. When the consumer stops early (or anything is thrown in), `stop`
 * aborts the calls still running, and once they settled `onStop` commits the turn.
 */
export async function* streamRound(
  round: Round,
  settings: (events: EventQueue<StreamEvent>) => ToolStepSettings,
  stop: () => void,
  onStop: () => void,
): AsyncGenerator<readonly StreamEvent[], void, undefined> {
  const queue = new EventQueue<StreamEvent>();
  const step = settings(queue);
  prepare(round, step);
  const running = round.turn.run(step, round.run, round.inputs);
  void running.then(() => queue.close());
  let drained = false;
  try {
    const started: StreamEvent[] = round.turn.startedEvents(
      round.answers.size === 0 ? round.run : [...round.run, ...round.answers.keys()],
    );
    if (round.fresh) started.push(turnComplete('tool_calls', round.response.usage));
    yield started;
    for (let events = await queue.take(); events !== undefined; events = await queue.take())
      yield events;
    drained = true;
  } finally {
    if (!drained) {
      stop();
      await running;
      onStop();
    }
  }
}
