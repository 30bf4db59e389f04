export type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
  FinishReason,
  Usage,
} from './chat-provider.js';
export type { ClearOldResultsOptions, SpillOptions } from './context/budget-options.js';
export type { TruncationOptions } from './context/head-tail.js';
export type { PartSize, RequestBreakdown } from './context/request-breakdown.js';
export type { MemoryResultStoreOptions, ResultStore } from './context/result-store.js';
export { MemoryResultStore } from './context/result-store.js';
export type { ToolSearchOptions } from './context/tool-search.js';
export type { LlmErrorCode, LlmErrorJson, LlmErrorOptions } from './llm-error.js';
export { isRetryableStatus, LlmError, llmErrorCodes } from './llm-error.js';
export type {
  CompactionInput,
  CompactionOptions,
  CompactionStrategy,
  SummarizeOptions,
  TokenEstimator,
} from './loop/compaction.js';
export {
  describeBrokenToolPairs,
  dropOldestExchanges,
  estimateTokens,
  groupExchanges,
  summarizeOldestExchanges,
} from './loop/compaction.js';
export type { LlmCycleOptions, SubmitOptions } from './loop/cycle-options.js';
export { LlmCycle } from './loop/llm-cycle.js';
export type { LoopDetectionOptions } from './loop/loop-guard.js';
export type { RunProgress, StopCondition } from './loop/stop-conditions.js';
export { stopAfterTokens, stopAfterToolCalls, stopOnTool } from './loop/stop-conditions.js';
export type { TruncatedText } from './loop/truncate.js';
export { truncateUtf8 } from './loop/truncate.js';
export type {
  AssistantMessage,
  ChatMessage,
  ContentPart,
  ProviderState,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from './messages.js';
export { hasToolCalls, systemMessage, toolMessage, userMessage } from './messages.js';
export type { LlmTracingOptions } from './observability/tracing.js';
export type { HttpProviderOptions } from './providers/http/provider-options.js';
export type { OpenAICompatibleProviderOptions } from './providers/openai-compatible/openai-compatible-provider.js';
export { createOpenAICompatibleProvider } from './providers/openai-compatible/openai-compatible-provider.js';
export type { SendReasoning } from './providers/openai-compatible/request-body.js';
export type { RetryDetails, RetryOptions } from './retry.js';
export type { ApprovalDecision, ApprovalPolicy, ApprovalRequest } from './runs/approval.js';
export type {
  Interruption,
  PendingCall,
  PendingRun,
  ResumeDecision,
  RunState,
} from './runs/run-state.js';
export type { RunStore } from './runs/run-store.js';
export { MemoryRunStore } from './runs/run-store.js';
export type {
  AssistantReasoningDeltaEvent,
  AssistantTextDeltaEvent,
  StreamEvent,
  ToolApprovalRequestedEvent,
  ToolCallDeltaEvent,
  ToolExecutionCompletedEvent,
  ToolExecutionProgressEvent,
  ToolExecutionStartedEvent,
  ToolInputRequestedEvent,
  TurnCompleteEvent,
} from './stream-events.js';
