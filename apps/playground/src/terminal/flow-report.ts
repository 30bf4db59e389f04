import { type ChatMessage, LlmError } from '@agcore/llm-cycle';
import type { RunOutcome } from '../core/cycle-setup.js';
import { explainError } from '../core/explain-error.js';
import type { Flow, FlowContext, FlowExpectation } from '../core/flow-types.js';
import type { ModelSettings } from '../core/model-settings.js';
import type { Terminal } from '../core/output.js';
import { ExitCode, PlaygroundError } from '../core/playground-error.js';
import type { RunStats } from '../core/run-stats.js';
import { conversationOf, renderHistory, renderSummary, summarize } from './report.js';
import type { JsonTimeline } from './timeline.js';

export type { RunOutcome } from '../core/cycle-setup.js';

/** Everything the end of a run reports. */
export interface FlowEnd {
  readonly flow: Flow;
  readonly context: FlowContext;
  readonly model: ModelSettings;
  readonly terminal: Terminal;
  readonly json: JsonTimeline | undefined;
  readonly outcome: RunOutcome;
  readonly failure: unknown;
  readonly stats: RunStats;
  readonly history: readonly ChatMessage[];
  readonly showHistory: boolean;
  /** Steps of the scripted model left unused. */
  readonly scriptStepsLeft: number | undefined;
  /** Where a paused run was written, and the command that resumes it. */
  readonly saved?: { readonly path: string; readonly command: string };
}

/**
 * Prints how the run ended (the `run_finished` record with `--json`): the outcome, a hint, the
 * history when the loop did not end normally, the summary. Returns the exit code: 0 when the
 * flow ended as intended, 130 when cancelled, the error's own code for bad input, 1 otherwise.
 */
export function reportFlowEnd(end: FlowEnd): number {
  const { flow, context, model, outcome, failure, stats } = end;
  const expected = flow.expects(context);
  // The scripted model follows the flow's script, so its ending is known. A real model
  // decides for itself (it may answer without the refused call, or stop before maxTurns):
  // any ending but a failure is what the flow shows then.
  const followsScript = model.kind === 'scripted';
  const asIntended =
    outcome === 'cancelled'
      ? false
      : expected === 'any' || outcome === expected || (!followsScript && outcome !== 'failed');
  const exitCode =
    outcome === 'cancelled'
      ? ExitCode.interrupted
      : asIntended
        ? ExitCode.ok
        : failure instanceof PlaygroundError
          ? failure.exitCode
          : ExitCode.failed;
  const report: EndReport = {
    expected,
    asIntended,
    exitCode,
    summary: summarize(stats, model.kind === 'scripted'),
    hint: flow.hint?.(context, outcome),
    explained: failure === undefined ? undefined : explainError(failure, model).message,
  };
  if (end.json !== undefined) writeJsonEnd(end, end.json, report);
  else writeTextEnd(end, report);
  return exitCode;
}

/** What the end of a run says, worked out once for both outputs. */
interface EndReport {
  readonly expected: FlowExpectation;
  readonly asIntended: boolean;
  readonly exitCode: number;
  readonly summary: ReturnType<typeof summarize>;
  readonly hint: string | undefined;
  /** The failure explained, when there is one. */
  readonly explained: string | undefined;
}

function writeJsonEnd(end: FlowEnd, json: JsonTimeline, report: EndReport): void {
  const { hint, explained } = report;
  json.write({
    type: 'run_finished',
    flow: end.flow.name,
    outcome: end.outcome,
    expected: report.expected,
    exitCode: report.exitCode,
    ...(explained === undefined ? {} : { error: toJsonError(end.failure, explained) }),
    ...(hint === undefined ? {} : { hint }),
    ...(end.saved === undefined ? {} : { stateFile: end.saved.path, resume: end.saved.command }),
    summary: report.summary,
    ...(end.scriptStepsLeft === undefined ? {} : { scriptStepsLeft: end.scriptStepsLeft }),
    history: end.history,
  });
}

function writeTextEnd(end: FlowEnd, report: EndReport): void {
  const { terminal, outcome, model, flow } = end;
  const c = terminal.colors;
  const why = report.explained ?? String(end.failure);
  terminal.out.write('\n');
  if (outcome === 'complete') {
    terminal.out.write(`${c.green('✔ done')}\n`);
  } else if (outcome === 'paused' && end.saved !== undefined) {
    terminal.out.write(
      `${c.yellow('⏸ paused')}: the run waits for a decision; its state is in ${end.saved.path}. Resume it (in another process) with:\n  ${c.bold(end.saved.command)}\n`,
    );
  } else if (outcome === 'cancelled') {
    terminal.out.write(
      `${c.yellow('⏹ cancelled')}: the request and the running tools were stopped; the history below is whole.\n`,
    );
  } else if (report.asIntended) {
    // The ending this flow demonstrates is its normal output (exit 0), so it goes to stdout.
    terminal.out.write(`${c.yellow('● ended as this flow shows')}: ${why}\n`);
  } else {
    terminal.err.write(`${c.red('✗ failed')}: ${why}\n`);
  }
  if (report.hint !== undefined) terminal.out.write(`${c.cyan('hint')}: ${report.hint}\n`);
  const conversation = conversationOf(end.history);
  const showHistory = end.showHistory || (outcome !== 'complete' && outcome !== 'paused');
  if (conversation.length > 0 && showHistory) {
    terminal.out.write(
      `\n${c.bold('history')} ${c.dim(`(${conversation.length} messages after the system prompt; cycle.messages() has them all)`)}\n`,
    );
    terminal.out.write(`${renderHistory(conversation, c, Math.max(40, terminal.columns - 16))}\n`);
  }
  // A run that failed before the model answered once (a wrong key, an unknown model) has
  // nothing to sum up; the error above says it all.
  const { summary } = report;
  if (outcome !== 'failed' || summary.turns > 0 || summary.toolCalls > 0) {
    terminal.out.write(`\n${c.bold('summary')}\n${renderSummary(summary, c, terminal.columns)}\n`);
  }
  if (model.kind === 'scripted' && outcome === 'complete' && flow.name === 'tour') {
    terminal.out.write(
      `${c.dim('next: --list shows every flow · tools lists the tools · chat talks to them · --help for the rest')}\n`,
    );
  }
}

function toJsonError(error: unknown, message: string): object {
  if (LlmError.isInstance(error)) return { ...error.toJSON(), explanation: message };
  return { message };
}
