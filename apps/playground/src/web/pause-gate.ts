import type { Interruption, ResumeDecision } from '@agcore/llm-cycle';

/** What a paused run waits for: a decision on each waiting call, or `'keep'` (saved). */
export type PauseAnswer = Record<string, ResumeDecision> | 'keep';

/**
 * The page's side of a paused run (a flow's or a chat message's): the waiting calls, the
 * decisions given so far one by one, and the promise `driveRun` awaits, settled when every
 * waiting call has a decision, kept (`keep`) or refused (`refuse`: the run is abandoned).
 */
export class PauseGate {
  #waiting: Interruption[] = [];
  #decided: Record<string, ResumeDecision> = {};
  #settle: ((answer: PauseAnswer) => void) | undefined;
  #refuse: ((reason: Error) => void) | undefined;
  readonly #onDecision: (callId: string, decision: ResumeDecision) => void;

  /** Makes the gate; `onDecision` hears each accepted decision (to publish it). */
  constructor(onDecision: (callId: string, decision: ResumeDecision) => void) {
    this.#onDecision = onDecision;
  }

  /** The calls that wait for a decision now. */
  get waiting(): readonly Interruption[] {
    return this.#waiting;
  }

  /** Whether a pause is open (decisions, `keep` or `refuse` are taken). */
  get open(): boolean {
    return this.#settle !== undefined;
  }

  /** Opens a pause on `waiting`: resolves with the decisions or `'keep'`, rejects on `refuse`. */
  wait(waiting: Interruption[]): Promise<PauseAnswer> {
    this.#waiting = waiting;
    this.#decided = {};
    return new Promise((resolve, reject) => {
      const close = () => {
        this.#settle = undefined;
        this.#refuse = undefined;
        this.#waiting = [];
      };
      this.#refuse = (reason) => {
        close();
        reject(reason);
      };
      this.#settle = (answer) => {
        close();
        resolve(answer);
      };
    });
  }

  /**
   * Records the decision on one waiting call; when every waiting call has one, the pause ends.
   * Returns an error message when the call is not waiting or the decision does not fit it.
   */
  decide(callId: string, decision: ResumeDecision): string | undefined {
    const call = this.#waiting.find((item) => item.callId === callId);
    if (call === undefined || this.#settle === undefined) {
      return `No call ${callId} waits for a decision in this run.`;
    }
    if (call.kind === 'approval' && typeof decision === 'object' && 'input' in decision) {
      return `${call.toolName} (${callId}) waits for approval: approve or deny it.`;
    }
    if (call.kind === 'input' && decision === 'approve') {
      return `${call.toolName} (${callId}) asked a question: answer it (or deny).`;
    }
    this.#decided[callId] = decision;
    this.#onDecision(callId, decision);
    if (this.#waiting.every((item) => this.#decided[item.callId] !== undefined)) {
      this.#settle({ ...this.#decided });
    }
    return undefined;
  }

  /** Ends the pause with the run kept paused (it was saved). Returns whether one was open. */
  keep(): boolean {
    if (this.#settle === undefined) return false;
    this.#settle('keep');
    return true;
  }

  /** Ends an open pause with `reason` (the run is abandoned, its calls end cancelled). */
  refuse(reason: Error): void {
    this.#refuse?.(reason);
  }

  /** Forgets the waiting calls (the run ended). */
  clear(): void {
    this.#waiting = [];
  }
}
