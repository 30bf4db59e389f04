/** The Messages wire server and its builders, as `@agcore/llm-cycle/testing` exports them. */
export type { MessagesServer, MessagesServerOptions } from './messages-server.js';
export { messagesRuleBreak, startMessagesServer } from './messages-server.js';
export type { MessagesCall, MessagesReply, MessagesUsage } from './messages-wire-format.js';
export {
  messagesBody,
  messagesError,
  messagesErrorEvent,
  messagesEvent,
  messagesId,
  messagesStream,
  messagesUsage,
  thinkingSignature,
} from './messages-wire-format.js';
