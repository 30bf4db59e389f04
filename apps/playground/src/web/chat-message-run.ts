import { randomUUID } from 'node:crypto';
import type { Interruption, ResumeDecision } from '@agcore/llm-cycle';
import type { PermissionConfig } from '@agcore/tools-permission';
import { outcomeOf, type RunOutcome } from '../core/cycle-setup.js';
import { driveRun } from '../core/drive-run.js';
import { describeModel, type ModelSettings } from '../core/model-settings.js';
import { describePolicy } from '../core/policy.js';
import { countEvent, createRunStats } from '../core/run-stats.js';
import { type PauseAnswer, PauseGate } from './pause-gate.js';
import { describeFailure, type PageRun, type PageRunStatus, summaryOf } from './run-records.js';
import type { ChatConversation, WebChat } from './web-chat.js';

/** Why a paused chat message is not saved (a run file names the flow it resumes). */
export const chatSaveRefusal =
  'A chat message cannot be saved: decide its calls here, or run a flow to save a paused run.';

/** What one chat message needs. */
export interface ChatMessageOptions {
  readonly chat: WebChat;
  readonly message: string;
  readonly model: ModelSettings;
  readonly policy: PermissionConfig;
  /** Receives every record of the message (the page's event stream). */
  readonly publish: (record: object) => void;
}

/**
 * One message of the page's chat, run as a flow's run is (the same records, so the timeline
 * shows its text, cards, approvals and ask-back the same way), in the chat's conversation.
 * A paused message waits for `decide`; it cannot be saved (a run file names a flow).
 */
export class ChatMessageRun implements PageRun {
  /** The id the page's requests name. */
  readonly id = randomUUID();
  readonly #options: ChatMessageOptions;
  readonly #controller = new AbortController();
  readonly #gate = new PauseGate((callId, decision) =>
    this.#options.publish({ type: 'decision', runId: this.id, callId, decision }),
  );
  #status: PageRunStatus = 'starting';

  /** Makes the run; `start()` runs it. */
  constructor(options: ChatMessageOptions) {
    this.#options = options;
  }

  /** Where the message stands. */
  get status(): PageRunStatus {
    return this.#status;
  }

  /** The calls that wait for a decision now. */
  get waiting(): readonly Interruption[] {
    return this.#gate.waiting;
  }

  /**
   * Sends the message and drives the answer to its end, publishing `run_started`, every event,
   * `run_paused` and `run_finished`. Never rejects: a failure is the `run_finished` record.
   */
  async start(): Promise<void> {
    const { publish } = this.#options;
    const stats = createRunStats();
    let outcome: RunOutcome = 'failed';
    let failure: unknown;
    let conversation: ChatConversation | undefined;
    try {
      conversation = await this.#options.chat.next(this.id, this.#options.policy);
      this.#publishStart(conversation);
      this.#status = 'running';
      const result = await driveRun({
        cycle: conversation.cycle,
        registry: conversation.session.registry,
        signal: this.#controller.signal,
        prompt: this.#options.message,
        onEvent: (event) => {
          countEvent(event, stats);
          publish({ type: 'event', runId: this.id, event });
        },
        onPause: (waiting) => this.#pause(waiting),
      });
      failure = result.failure;
      outcome = outcomeOf(result.failure, this.#controller.signal.aborted);
    } catch (error) {
      failure = error;
      if (conversation === undefined) this.#publishStart(undefined);
    } finally {
      this.#status = 'finished';
      this.#gate.clear();
    }
    publish({
      type: 'run_finished',
      runId: this.id,
      outcome,
      ...(conversation === undefined ? {} : { chat: chatOf(conversation) }),
      ...(failure === undefined ? {} : { failure: describeFailure(failure) }),
      summary: summaryOf(stats),
    });
  }

  #publishStart(conversation: ChatConversation | undefined): void {
    const { model, policy, message, publish } = this.#options;
    const registry = conversation?.session.registry;
    publish({
      type: 'run_started',
      runId: this.id,
      flow: 'chat',
      chat: conversation === undefined ? { conversation: 0, message: 0 } : chatOf(conversation),
      model: describeModel(model),
      policy: describePolicy(policy),
      tools: (registry?.listTools() ?? []).map((name) => ({
        name,
        source: conversation?.session.sources.get(name)?.source ?? 'built-in',
      })),
      prompt: message,
      waiting: [],
    });
  }

  async #pause(waiting: Interruption[]): Promise<PauseAnswer> {
    this.#status = 'paused';
    this.#options.publish({ type: 'run_paused', runId: this.id, waiting });
    const answer = await this.#gate.wait(waiting);
    this.#status = 'running';
    return answer;
  }

  /** Records the decision on one waiting call. Returns the refusal's message, or `undefined`. */
  decide(callId: string, decision: ResumeDecision): string | undefined {
    return this.#gate.decide(callId, decision);
  }

  /** Refuses: a chat message is not saved (the page's flows are). */
  save(_file: string): Promise<string | undefined> {
    return Promise.resolve(chatSaveRefusal);
  }

  /** Cancels the request and tools; a paused message is abandoned. The conversation goes on. */
  cancel(): void {
    const reason = new Error('Cancelled from the page.');
    this.#controller.abort(reason);
    this.#gate.refuse(reason);
  }
}

function chatOf(conversation: ChatConversation) {
  return { conversation: conversation.number, message: conversation.message };
}
