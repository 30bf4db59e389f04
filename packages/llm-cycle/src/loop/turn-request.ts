import type { ChatRequest, ChatResponse } from '../chat-provider.js';
import type { ContextBudget } from '../context/context-budget.js';
import type { ModelCall } from '../model-request.js';
import { compactHistory } from './compaction.js';
import type { Conversation } from './conversation.js';
import type { ResolvedCycleOptions } from './cycle-options.js';
import { addUsage, type RunCounters } from './run-counters.js';
import type { Submission } from './submission.js';

/**
 * What each model request of a cycle sends, and what its answer counts for: the history
 * compacted when it grew past the budget, then the messages and tool definitions the context
 * budget chooses (old results cleared, tool search), with the cycle's model and parameters;
 * after the answer, its token use noted in the conversation, the budget's breakdown and the
 * run's counters. The request itself (retries, tracing, streaming) is `model-request.ts`.
 */
export class TurnRequests {
  constructor(
    private readonly options: ResolvedCycleOptions,
    private readonly conversation: Conversation,
    private readonly budget: ContextBudget,
  ) {}

  /**
   * The next model request of `submission`. A promise only when compaction is on (it may ask a
   * summarizer first): without it no turn of the event loop is spent here.
   */
  next(submission: Submission): ModelCall | Promise<ModelCall> {
    if (this.options.compaction === undefined) return this.#call(submission);
    return this.#compact(submission).then(() => this.#call(submission));
  }

  /** Counts the answer's token use (the conversation's, the last request's, the run's). */
  answered(response: ChatResponse, run: RunCounters): void {
    const usage = response.usage;
    this.conversation.addUsage(usage);
    this.budget.responded(usage);
    run.usage = addUsage(run.usage, usage);
  }

  /** Compacts the history when it is over the budget (see `compactHistory`). */
  async #compact(submission: Submission): Promise<void> {
    const { options, conversation } = this;
    if (options.compaction === undefined) return;
    const compacted = await compactHistory(
      conversation.history,
      options.system,
      submission.definitionTokens,
      options.compaction,
      submission.controller.signal,
    );
    if (compacted !== undefined) conversation.history = compacted;
  }

  /** The request: the history, the tools, the parameters. */
  #call(submission: Submission): ModelCall {
    const options = this.options;
    const { messages, definitions } = this.budget.request(
      this.conversation.messages(),
      submission.registry,
      submission.definitions,
    );
    const request: ChatRequest = {
      model: options.model,
      messages,
      ...(definitions.length > 0 ? { tools: definitions } : {}),
      ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
    };
    return {
      provider: options.provider,
      request,
      options: submission.providerOptions,
      retry: options.retry,
      signal: submission.controller.signal,
    };
  }
}
