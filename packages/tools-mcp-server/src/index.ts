export type { VerifyBearerJwtOptions } from './bearer-jwt.js';
export { verifyBearerJwt } from './bearer-jwt.js';
export type { ChangeFeed, ServerChange } from './change-feed.js';
export { InMemoryChangeFeed } from './change-feed.js';
export type {
  IdempotencyReservation,
  IdempotencyStore,
  InMemoryIdempotencyStoreOptions,
} from './idempotency-store.js';
export { InMemoryIdempotencyStore } from './idempotency-store.js';
export type {
  McpCompletion,
  McpCompletionRequest,
  McpPrompt,
  McpPromptArgument,
  McpPromptContent,
  McpPromptMessage,
  McpPromptPage,
  McpPromptProvider,
  McpPromptResult,
  McpRequestInfo,
  McpResource,
  McpResourceContents,
  McpResourcePage,
  McpResourceProvider,
  McpResourceTemplate,
} from './offerings.js';
export { serveTools } from './serve-tools.js';
export type {
  StaticOfferingOptions,
  StaticPrompt,
  StaticResource,
  StaticResourcesOptions,
  StaticResourceTemplate,
} from './static-offerings.js';
export { staticPrompts, staticResources } from './static-offerings.js';
export { errorCodeMetaKey, idempotencyKeyMetaKey } from './tool-calls.js';
export type {
  ApprovalPolicy,
  ApprovalRequest,
  ListCacheHint,
  ListeningServer,
  ListenOptions,
  McpCaller,
  McpClientCapability,
  McpProtocolRevision,
  ServeToolsOptions,
  ToolServer,
} from './types.js';
