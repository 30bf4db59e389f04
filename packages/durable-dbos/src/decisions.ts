// Decisions are checked against the calls that wait before they are sent (by the client) and
// again when they arrive (by the workflow, which ignores a message that does not fit): the
// rules are the loop's own, so a decision that reaches `resume` is one it takes.
import type { Interruption, ResumeDecision } from '@agcore/llm-cycle';

/** What the paused workflow publishes: the calls that wait, and every call decided so far. */
export interface PauseRecord {
  /** The run's resume epoch when it paused. */
  readonly epoch: number;
  /** The calls waiting now (empty when the run does not wait). */
  readonly calls: readonly Interruption[];
  /** The ids of the calls decided earlier in the run. */
  readonly decided: readonly string[];
  /** The stretch that takes the decisions: a DELAYED workflow until they are sent. */
  readonly segment?: string;
}

/** Problems with `decisions` for `calls` (one line each); empty when they fit. */
export function decisionProblems(
  calls: readonly Interruption[],
  decisions: Readonly<Record<string, ResumeDecision>>,
): string[] {
  const problems: string[] = [];
  const waiting = new Map(calls.map((call) => [call.callId, call]));
  for (const callId of Object.keys(decisions)) {
    const call = waiting.get(callId);
    const decision = decisions[callId];
    if (call === undefined) problems.push(`${JSON.stringify(callId)} is not a call that waits`);
    else if (!fits(call, decision)) problems.push(`${JSON.stringify(callId)} ${kindRule(call)}`);
  }
  for (const call of calls) {
    if (!Object.hasOwn(decisions, call.callId))
      problems.push(`${JSON.stringify(call.callId)} (${call.toolName}) waits and has no decision`);
  }
  return problems;
}

function fits(call: Interruption, decision: unknown): boolean {
  if (typeof decision === 'object' && decision !== null && 'deny' in decision) {
    return typeof (decision as { deny: unknown }).deny === 'string';
  }
  if (call.kind === 'approval') return decision === 'approve';
  return typeof decision === 'object' && decision !== null && 'input' in decision;
}

function kindRule(call: Interruption): string {
  return call.kind === 'approval'
    ? `waits for approval: decide 'approve' or { deny: reason }`
    : `asked a question: answer { input: value } or { deny: reason }`;
}
