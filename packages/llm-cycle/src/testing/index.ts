export type { Cassette, CassetteExchange } from './cassette.js';
export { CassetteMismatchError } from './cassette.js';
export type { CassetteRecorder, RecordCassetteOptions } from './cassette-recorder.js';
export { recordCassette } from './cassette-recorder.js';
export type {
  CassetteReplay,
  ReplayOptions,
  ReplayProviderOptions,
  ReplayReads,
} from './cassette-replay.js';
export { replayCassette } from './cassette-replay.js';
export type {
  ChatCompletionsServer,
  ChatCompletionsServerOptions,
  ReceivedRequest,
  ReplyHeaders,
  ServerReply,
} from './chat-completions-server.js';
export { startChatCompletionsServer } from './chat-completions-server.js';
export type { GeminiServer, GeminiServerOptions } from './gemini-server.js';
export { geminiRuleBreak, startGeminiServer } from './gemini-server.js';
export type { GeminiCall, GeminiReply, GeminiUsage } from './gemini-wire.js';
export {
  geminiBody,
  geminiError,
  geminiErrorEvent,
  geminiParts,
  geminiRateLimit,
  geminiSignature,
  geminiStream,
  geminiUsage,
} from './gemini-wire.js';
export {
  type MessagesCall,
  type MessagesReply,
  type MessagesServer,
  type MessagesServerOptions,
  type MessagesUsage,
  messagesBody,
  messagesError,
  messagesErrorEvent,
  messagesEvent,
  messagesId,
  messagesRuleBreak,
  messagesStream,
  messagesUsage,
  startMessagesServer,
  thinkingSignature,
} from './messages-exports.js';
export type { ResponsesServer } from './responses-server.js';
export { startResponsesServer } from './responses-server.js';
export type { ResponseParts, ResponsesObject } from './responses-wire.js';
export {
  functionCallItem,
  messageItem,
  reasoningItem,
  responseEvents,
  responseObject,
  responsesErrorEvent,
  responsesEvent,
  responsesId,
  responsesUsage,
} from './responses-wire.js';
export type { RecordedCall, ScriptedToolCall, ScriptStep } from './scripted-provider.js';
export { ScriptedProvider, textResponse, toolCallsResponse } from './scripted-provider.js';
export type { StreamedCall, WireObject } from './wire-format.js';
export {
  completionChunk,
  completionId,
  errorBody,
  sseDone,
  sseEvent,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
  usageChunk,
  wireUsage,
} from './wire-format.js';
