import { outcomeOf } from '../core/cycle-setup.js';
import { decide, decisionMap, describeDecision } from '../core/decisions.js';
import { driveRun } from '../core/drive-run.js';
import { explainError } from '../core/explain-error.js';
import { formatDuration } from '../core/output.js';
import { createRunStats, type RunStats } from '../core/run-stats.js';
import type { ChatState } from './chat-state.js';
import { conversationOf, summarize } from './report.js';
import { PrettyTimeline } from './timeline.js';

/**
 * Runs one turn of the chat: the loop on `prompt`, asking inline when the run pauses; then the
 * outcome and a summary line. Ctrl-C (the state's `turn` aborted) cancels it. Never throws
 * for a failed run: it is reported.
 */
export async function runChatTurn(prompt: string, state: ChatState): Promise<void> {
  const controller = new AbortController();
  state.turn = controller;
  const timeline = new PrettyTimeline(state.terminal);
  state.turnTimeline = timeline;
  const stats = createRunStats();
  let failure: unknown;
  try {
    const drive = await driveRun({
      cycle: state.cycle,
      registry: state.session.registry,
      signal: controller.signal,
      prompt,
      onEvent: (event) => timeline.event(event, stats),
      onPause: async (waiting) => {
        const c = state.terminal.colors;
        const ask = state.console.askInline(controller.signal, () => state.turnTimeline?.settle());
        const decided = await decide(waiting, {}, ask, c);
        for (const item of decided) timeline.line(describeDecision(item, c));
        return decisionMap(decided);
      },
    });
    failure = drive.failure;
  } finally {
    state.turn = undefined;
    state.turnTimeline = undefined;
    timeline.settle();
  }
  reportTurnEnd(state, failure, controller.signal.aborted);
  state.console.say(state.terminal.colors.dim(turnSummary(state, stats)));
}

/** Says how a turn ended, when it did not complete. */
function reportTurnEnd(state: ChatState, failure: unknown, aborted: boolean): void {
  const { say } = state.console;
  const c = state.terminal.colors;
  const outcome = outcomeOf(failure, aborted);
  if (outcome === 'cancelled') {
    say(
      c.yellow(
        `⏹ turn cancelled; the history is whole (${conversationOf(state.cycle.messages()).length} messages after the system prompt).${state.terminated ? '' : ' The session goes on.'}`,
      ),
    );
  } else if (failure !== undefined) {
    say(c.red(`✗ ${explainError(failure, state.model).message}`));
    if (outcome === 'permission_denied')
      say(c.cyan('hint: /permissions shows the policy; /allow PERM changes it.'));
  }
}

/** `(N turns · N tool calls · N failed · N tokens · time)`, uncoloured. */
function turnSummary(state: ChatState, stats: RunStats): string {
  const summary = summarize(stats, state.model.kind === 'scripted');
  const tokens =
    summary.tokens === 'none'
      ? ''
      : ` · ${summary.tokens === 'estimated' ? '~' : ''}${summary.promptTokens + summary.completionTokens} tokens`;
  return `(${summary.turns} turn${summary.turns === 1 ? '' : 's'} · ${summary.toolCalls} tool call${summary.toolCalls === 1 ? '' : 's'} · ${summary.failures} failed${tokens} · ${formatDuration(summary.wallTimeMs)})`;
}
