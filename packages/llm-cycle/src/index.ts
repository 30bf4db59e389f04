export type { ApprovalDecision, ApprovalPolicy, ApprovalRequest } from './approval.js';
export type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
  FinishReason,
  Usage,
} from './chat-provider.js';
export type {
  CompactionInput,
  CompactionOptions,
  CompactionStrategy,
  SummarizeOptions,
  TokenEstimator,
} from './compaction.js';
export {
  describeBrokenToolPairs,
  dropOldestExchanges,
  estimateTokens,
  groupExchanges,
  summarizeOldestExchanges,
} from './compaction.js';
export type { LlmCycleOptions, SubmitOptions } from './cycle-options.js';
export { LlmCycle } from './llm-cycle.js';
export type { LlmErrorCode, LlmErrorJson, LlmErrorOptions } from './llm-error.js';
export { isRetryableStatus, LlmError, llmErrorCodes } from './llm-error.js';
export type { LoopDetectionOptions } from './loop-guard.js';
export type {
  AssistantMessage,
  ChatMessage,
  ContentPart,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from './messages.js';
export { hasToolCalls, systemMessage, toolMessage, userMessage } from './messages.js';
export type { OpenAICompatibleProviderOptions } from './openai-compatible-provider.js';
export { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
export type { RetryDetails, RetryOptions } from './retry.js';
export type {
  Interruption,
  PendingCall,
  PendingRun,
  ResumeDecision,
  RunState,
} from './run-state.js';
export type { RunStore } from './run-store.js';
export { MemoryRunStore } from './run-store.js';
export type { RunProgress, StopCondition } from './stop-conditions.js';
export { stopAfterTokens, stopAfterToolCalls, stopOnTool } from './stop-conditions.js';
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
export type { LlmTracingOptions } from './tracing.js';
export type { TruncatedText } from './truncate.js';
export { truncateUtf8 } from './truncate.js';
export type { SendReasoning } from './wire/request-body.js';
