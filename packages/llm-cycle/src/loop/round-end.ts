import { ToolError } from '@agcore/tools-core';
import { LlmError } from '../llm-error.js';
import type { Round } from './tool-round.js';
import type { ToolTurn, Waiting } from './tool-step.js';

/**
 * How a round ends: the run pauses (calls wait, and nothing ends the run), or the turn is
 * committed — and then the run may have to stop: cancelled (`cancelled`, the caller's to make),
 * a fatal tool error (`tool_error`), a model that kept repeating a refused call
 * (`loop_detected`).
 */
export type RoundEnd =
  | { readonly pause: true }
  | { readonly pause: false; readonly cancelled: boolean; readonly error?: LlmError };

/**
 * Decides how `round` ends; when it does not pause, answers its calls that wait or never ran
 * (each says why, as `Error [cancelled]`), so the turn can be committed whole.
 */
export function endRound(
  round: Round,
  aborted: boolean,
  options: {
    readonly returnUnknownTool: boolean;
    readonly maxToolResultBytes: number | null;
    readonly maxRepeats: number | undefined;
  },
): RoundEnd {
  const { turn, loopStop } = round;
  const fatal = turn.firstFatal(options.returnUnknownTool);
  const answered = turn.results.filter((result) => result !== undefined).length;
  if (answered === turn.calls.length && !aborted && fatal === undefined && loopStop === undefined) {
    return { pause: false, cancelled: false };
  }
  const waiting = turn.pending().length;
  // Only a turn whose every call has its verdict or waits can be kept aside whole.
  if (
    !aborted &&
    fatal === undefined &&
    loopStop === undefined &&
    waiting > 0 &&
    answered + waiting === turn.calls.length
  ) {
    return { pause: true };
  }
  const ending = aborted
    ? 'the run was cancelled'
    : fatal !== undefined
      ? `the run ended when tool '${fatal.toolName}' failed`
      : loopStop !== undefined
        ? `the run ended: the model kept calling '${loopStop}'`
        : 'the run ended';
  closeTurn(turn, ending, options.maxToolResultBytes);
  if (aborted) return { pause: false, cancelled: true };
  if (fatal !== undefined) {
    const { error, toolName } = fatal;
    return {
      pause: false,
      cancelled: false,
      error: new LlmError(
        'tool_error',
        `Tool '${toolName}' failed with ${error.code} (${error.message}); the tool loop stopped. The history is whole: fix the cause and submit again to go on.`,
        { cause: error, toolName },
      ),
    };
  }
  if (loopStop !== undefined) {
    return {
      pause: false,
      cancelled: false,
      error: new LlmError(
        'loop_detected',
        `The model kept calling tool '${loopStop}' with the same arguments after it was told the call would not run again (loopDetection.maxRepeats ${options.maxRepeats}); the tool loop stopped. The history is whole.`,
        { toolName: loopStop },
      ),
    };
  }
  return { pause: false, cancelled: false };
}

/** Answers the calls of `turn` that wait (or never ran) when the run ends without them. */
export function closeTurn(turn: ToolTurn, ending: string, maxBytes: number | null): void {
  turn.closeUnanswered((toolName, waiting: Waiting | undefined) => {
    const what =
      waiting?.kind === 'approval'
        ? 'was not run: it waited for approval when'
        : waiting?.kind === 'input'
          ? 'asked for input, and got none:'
          : 'was cancelled before it finished:';
    return new ToolError('cancelled', `Tool '${toolName}' ${what} ${ending}.`, { toolName });
  }, maxBytes);
}
