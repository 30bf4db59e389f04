import { randomUUID } from 'node:crypto';
import { type Interruption, LlmCycle, type ResumeDecision, type RunState } from '@agcore/llm-cycle';
import { createRedactor, type Permission, type Redactor } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import { auditLine, auditSecrets } from '../core/audit-log.js';
import {
  createProvider,
  outcomeOf,
  type RunOutcome,
  restore,
  stateSecret,
  systemPrompt,
} from '../core/cycle-setup.js';
import { driveRun } from '../core/drive-run.js';
import type { Flow, FlowContext } from '../core/flows.js';
import { readMcpConfig } from '../core/mcp-config.js';
import { describeModel, type ModelSettings } from '../core/model-settings.js';
import { allowForFlow, describePolicy } from '../core/policy.js';
import { writeRunFile } from '../core/run-file.js';
import { countEvent, createRunStats, type RunStats } from '../core/run-stats.js';
import { PlaygroundSession } from '../core/session.js';
import { recordModelExchanges } from './model-exchanges.js';
import { type PauseAnswer, PauseGate } from './pause-gate.js';
import { describeFailure, type PageRun, type PageRunStatus, summaryOf } from './run-records.js';

/** What a run of the page needs: the flow, the model, the policy, where its records go. */
export interface WebRunOptions {
  readonly flow: Flow;
  readonly model: ModelSettings;
  readonly policy: PermissionConfig;
  /** `--deny`: never lifted by a flow's own `allow`. */
  readonly deny: readonly Permission[];
  readonly mcpConfigPath?: string;
  /** A paused run to go on with (read from a run file). */
  readonly resume?: { readonly path: string; readonly state: RunState };
  /** Receives every record of the run (the page's event stream). */
  readonly publish: (record: object) => void;
}

/** Where a run stands, for the page's buttons. */
export type WebRunStatus = PageRunStatus;

/**
 * One run of a flow driven from the page: the same session, provider and cycle as the terminal's
 * `runFlow`, its events published as they come; when it pauses, the waiting calls wait for
 * `decide` (or `save`, which writes the same run file the terminal writes and ends the run
 * paused); `cancel` aborts the request and the tools.
 */
export class WebRun implements PageRun {
  /** The id the page's requests name. */
  readonly id = randomUUID();
  readonly #options: WebRunOptions;
  readonly #controller = new AbortController();
  #status: WebRunStatus = 'starting';
  #cycle: LlmCycle | undefined;
  readonly #gate = new PauseGate((callId, decision) =>
    this.#options.publish({ type: 'decision', runId: this.id, callId, decision }),
  );
  /** Takes the API key and the secrets of `--mcp-config` out of audit lines and model bodies. */
  #redact: Redactor = (text) => text;

  /** Makes the run; `start()` runs it. */
  constructor(options: WebRunOptions) {
    this.#options = options;
  }

  /** Where the run stands. */
  get status(): WebRunStatus {
    return this.#status;
  }

  /** The calls that wait for a decision now. */
  get waiting(): readonly Interruption[] {
    return this.#gate.waiting;
  }

  /**
   * Runs the flow to its end (or to a kept pause), publishing `run_started`, every event,
   * `run_paused` and `run_finished`. Never rejects: a failure is the `run_finished` record.
   */
  async start(): Promise<void> {
    const { flow, publish } = this.#options;
    const stats = createRunStats();
    let session: PlaygroundSession | undefined;
    let outcome: RunOutcome = 'failed';
    let failure: unknown;
    let context: FlowContext | undefined;
    try {
      session = await this.#openSession();
      context = flowContext(session, this.#options.resume !== undefined);
      const result = await this.#drive(session, context, stats);
      failure = result.failure;
      outcome = result.paused
        ? 'paused'
        : outcomeOf(result.failure, this.#controller.signal.aborted);
    } catch (error) {
      failure = error;
    } finally {
      await session?.close();
      this.#status = 'finished';
      this.#gate.clear();
    }
    publish({
      type: 'run_finished',
      runId: this.id,
      outcome,
      expected: context === undefined ? undefined : flow.expects(context),
      ...(failure === undefined ? {} : { failure: describeFailure(failure) }),
      summary: summaryOf(stats),
    });
  }

  /** The policy in force: the session's, plus what the flow allows (never over `--deny`). */
  get #policy(): PermissionConfig {
    const { flow, policy, deny } = this.#options;
    return flow.allow === undefined ? policy : allowForFlow(policy, flow.allow, deny);
  }

  async #openSession(): Promise<PlaygroundSession> {
    const { flow, mcpConfigPath } = this.#options;
    const mcpConfig = mcpConfigPath === undefined ? undefined : await readMcpConfig(mcpConfigPath);
    const { model, publish } = this.#options;
    const redact = createRedactor(
      auditSecrets({
        ...(model.kind === 'remote' && model.apiKey !== undefined ? { apiKey: model.apiKey } : {}),
        ...(mcpConfig === undefined ? {} : { mcpServers: mcpConfig.servers }),
        redactEnv: [],
        environment: process.env,
      }),
    );
    this.#redact = redact;
    return PlaygroundSession.open({
      servers: flow.servers,
      policy: this.#policy,
      ...(mcpConfig === undefined ? {} : { mcpConfig }),
      // The same line `--audit FILE` writes, for the page's audit view.
      onInvocation: (invocation, entry) =>
        publish({ type: 'audit', runId: this.id, line: auditLine(invocation, entry, redact) }),
    });
  }

  async #drive(session: PlaygroundSession, context: FlowContext, stats: RunStats) {
    const { flow, model, resume, publish } = this.#options;
    const used = resume?.state.pending?.turns ?? 0;
    const { provider: bare } = createProvider(model, flow.script(context), true, used);
    const provider = recordModelExchanges(
      bare,
      this.#redact,
      (record) => publish({ type: 'model', runId: this.id, ...record }),
      used + 1,
    );
    const secret = stateSecret();
    const cycle = restore(
      resume?.path,
      () =>
        new LlmCycle({
          provider,
          model: model.kind === 'remote' ? model.model : 'scripted',
          ...(resume === undefined ? { systemPrompt } : { state: resume.state }),
          ...(secret === undefined ? {} : { stateSecret: secret }),
          ...(flow.maxTurns === undefined ? {} : { maxTurns: flow.maxTurns }),
          ...(flow.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: flow.toolTimeoutMs }),
          ...(flow.maxToolResultBytes === undefined
            ? {}
            : { maxToolResultBytes: flow.maxToolResultBytes }),
        }),
    );
    this.#cycle = cycle;
    const prompt = flow.prompt(context);
    publish({
      type: 'run_started',
      runId: this.id,
      flow: flow.name,
      summary: flow.summary,
      model: describeModel(model),
      policy: describePolicy(this.#policy),
      tools: session.registry.listTools().map((name) => ({
        name,
        source: session.sources.get(name)?.source ?? 'built-in',
      })),
      prompt: resume === undefined ? prompt : undefined,
      resumedFrom: resume?.path,
      waiting: resume === undefined ? [] : cycle.interruptions(),
    });
    this.#status = 'running';
    return driveRun({
      cycle,
      registry: session.registry,
      signal: this.#controller.signal,
      prompt: resume === undefined ? prompt : undefined,
      onEvent: (event) => {
        countEvent(event, stats);
        publish({ type: 'event', runId: this.id, event });
      },
      onPause: (waiting) => this.#pause(waiting),
    });
  }

  async #pause(waiting: Interruption[]): Promise<PauseAnswer> {
    this.#status = 'paused';
    this.#options.publish({ type: 'run_paused', runId: this.id, waiting });
    const answer = await this.#gate.wait(waiting);
    this.#status = answer === 'keep' ? 'paused' : 'running';
    return answer;
  }

  /**
   * Records the decision on one waiting call; when every waiting call has one, the run goes
   * on. Returns an error message when the call is not waiting, else `undefined`.
   */
  decide(callId: string, decision: ResumeDecision): string | undefined {
    return this.#gate.decide(callId, decision);
  }

  /**
   * Writes the paused run to `file` (the terminal's run file: `resume FILE` reads it too) and
   * ends this run paused. Resolves to an error message when the run is not paused.
   */
  async save(file: string): Promise<string | undefined> {
    const cycle = this.#cycle;
    if (cycle === undefined || !this.#gate.open) return 'The run is not paused.';
    await writeRunFile(file, this.#options.flow.name, cycle.state());
    this.#options.publish({ type: 'run_saved', runId: this.id, path: file });
    this.#gate.keep();
    return undefined;
  }

  /** Cancels the running request and tools (a paused run is abandoned). Never throws. */
  cancel(): void {
    const reason = new Error('Cancelled from the page.');
    this.#controller.abort(reason);
    // A paused run: driveRun abandons it with this reason (the waiting calls end cancelled).
    this.#gate.refuse(reason);
  }
}

function flowContext(session: PlaygroundSession, resuming: boolean): FlowContext {
  return {
    sandboxDir: session.sandbox.dir,
    allows: (permissions) => session.checker.isAllowed(permissions),
    resuming,
  };
}
