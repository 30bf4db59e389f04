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
export { serveTools } from './serve-tools.js';
export { errorCodeMetaKey, idempotencyKeyMetaKey } from './tool-calls.js';
export type {
  ApprovalPolicy,
  ApprovalRequest,
  ListCacheHint,
  ListeningServer,
  ListenOptions,
  McpCaller,
  McpProtocolRevision,
  ServeToolsOptions,
  ToolServer,
} from './types.js';
