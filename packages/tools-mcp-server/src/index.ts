export type { VerifyBearerJwtOptions } from './auth/bearer-jwt.js';
export { verifyBearerJwt } from './auth/bearer-jwt.js';
export { errorCodeMetaKey, idempotencyKeyMetaKey } from './calls/tool-calls.js';
export type { ChangeFeed, ServerChange } from './fleet/change-feed.js';
export { InMemoryChangeFeed } from './fleet/change-feed.js';
export type {
  IdempotencyReservation,
  IdempotencyStore,
  InMemoryIdempotencyStoreOptions,
} from './fleet/idempotency-store.js';
export { InMemoryIdempotencyStore } from './fleet/idempotency-store.js';
export type {
  StaticOfferingOptions,
  StaticPrompt,
  StaticResource,
  StaticResourcesOptions,
  StaticResourceTemplate,
} from './offerings/static-offerings.js';
export { staticPrompts, staticResources } from './offerings/static-offerings.js';
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
export { serveTools } from './serving/serve-tools.js';
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
