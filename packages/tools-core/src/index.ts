export type { AwaitInputOptions, AwaitingInput } from './await-input.js';
export { awaitInput, isAwaitingInput } from './await-input.js';
export type { BackoffOptions } from './backoff.js';
export { backoffDelay } from './backoff.js';
export type { BaseTool, NeedsApprovalFunction, ToolDefinition } from './base-tool.js';
export { isToolName, toToolDefinition } from './base-tool.js';
export { canonicalJson } from './canonical-json.js';
export type { ChangeFeed, ServerChange } from './changes.js';
export type {
  AnyTool,
  DefineToolOptions,
  InferToolArgs,
  StandardToolSchema,
} from './define-tool.js';
export { defineTool } from './define-tool.js';
export type { DescribeNonJsonOptions, JsonObject, JsonValue } from './json.js';
export { describeNonJson, maxJsonDepth } from './json.js';
export type { JsonPreviewLimits } from './json-preview.js';
export { toJsonPreview } from './json-preview.js';
export type { FromJsonSchema, JsonSchema, JsonSchemaTypeName } from './json-schema.js';
export type {
  OtelAttributes,
  OtelAttributeValue,
  OtelContext,
  OtelSpan,
  OtelSpanContext,
  OtelSpanOptions,
  OtelSpanStatus,
  OtelTracer,
} from './otel.js';
export {
  activeOtelContext,
  getOtelSpan,
  getOtelTracer,
  injectOtelContext,
  isOtelSpanContextValid,
  OtelSpanKind,
  OtelSpanStatusCode,
  otelRootContext,
  setOtelSpan,
  withOtelContext,
} from './otel.js';
export type { BuiltinPermission, CustomPermission } from './permission.js';
export { checkRequiredPermissions, isPermission, Permission } from './permission.js';
export type { Redactor } from './redact.js';
export {
  createRedactor,
  redactError,
  redactedMarker,
  redactUrl,
  secretsOfHeaders,
  secretsOfUrl,
} from './redact.js';
export { hmacSha256Hex, sha256Hex, timingSafeHexEqual } from './sha256.js';
export type {
  IdempotencyReservation,
  IdempotencyStore,
  ResultStore,
  RunStore,
} from './stores.js';
export type { OptionalImport } from './telemetry.js';
export {
  boundAttribute,
  defaultMaxAttributeBytes,
  isTracerProviderRegistered,
  optionalImport,
} from './telemetry.js';
export { delay, settleWithin } from './timers.js';
export type { ToolContext, ToolInputAnswer, ToolLogLevel, ToolProgress } from './tool-context.js';
export { createToolContext } from './tool-context.js';
export type { ToolErrorCode, ToolErrorJson, ToolErrorOptions } from './tool-error.js';
export { describeThrown, ToolError, toolErrorCodes } from './tool-error.js';
export type { TruncatedText } from './truncate-utf8.js';
export { truncateUtf8 } from './truncate-utf8.js';
