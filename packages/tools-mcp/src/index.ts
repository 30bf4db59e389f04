// What a user of the MCP adapter needs from tools-core comes from here too, so that installing
// @agcore/tools-mcp alone is enough for everything its README shows.
export type {
  BaseTool,
  JsonObject,
  JsonSchema,
  JsonValue,
  ToolContext,
  ToolErrorCode,
  ToolProgress,
} from '@agcore/tools-core';
export { createToolContext, Permission, ToolError } from '@agcore/tools-core';
export { idJagAssertion, type McpIdJagOptions } from './auth/id-jag.js';
export { createMemoryTokenStore } from './auth/token-store.js';
export type {
  McpAssertionRequest,
  McpAuthorizationCodeAuth,
  McpBearerAuth,
  McpClientCredentialsAuth,
  McpCryptoKey,
  McpCryptoKeyPair,
  McpDpopOption,
  McpHttpAuth,
  McpJsonWebKey,
  McpJwtBearerAuth,
  McpNamedGrantAuth,
  McpOAuthGrantAuth,
  McpPrivateKeyJwt,
  McpTokenKey,
  McpTokenStore,
  McpTokens,
} from './auth/types.js';
export type {
  McpAudioContent,
  McpContentBlock,
  McpEmbeddedResourceContent,
  McpImageContent,
  McpResourceLinkContent,
  McpTextContent,
  McpToolResult,
} from './calls/call-result.js';
export { McpClient } from './client/mcp-client.js';
export type {
  McpServerFailure,
  McpServersConnectResult,
  McpServersOptions,
  McpServersToolsResult,
} from './client/mcp-servers.js';
export { McpServers } from './client/mcp-servers.js';
export type { McpServerEntry } from './config/mcp-config.js';
export { parseMcpServersConfig } from './config/mcp-config.js';
export type {
  McpHttpTransportConfig,
  McpSseTransportConfig,
  McpStdioTransportConfig,
  McpTransportConfig,
} from './config/transport-config.js';
export type { McpErrorCode, McpToolErrorOptions } from './mcp-tool-error.js';
export { McpToolError } from './mcp-tool-error.js';
export { McpResourceTooLargeError } from './resources/resource-errors.js';
export type { McpResourceTool, McpResourceToolsOptions } from './resources/resource-tools.js';
export type {
  McpPromptArgument,
  McpPromptInfo,
  McpPromptMessage,
  McpPromptPart,
  McpResourceContents,
  McpResourceInfo,
  McpResourceRead,
  McpResourceTemplateInfo,
  McpResourceUpdated,
} from './resources/resource-types.js';
export type { McpPermissionOverrides, McpToolAnnotations } from './tool-permissions.js';
export type {
  McpNeedsApproval,
  McpTool,
  McpToolFilter,
  McpToolsOptions,
} from './tools/mcp-tools.js';
export type { TypegenOptions, TypegenServer } from './typegen/typegen.js';
export { generateToolTypes } from './typegen/typegen.js';
export type {
  McpAutoReconnectOptions,
  McpCallOptions,
  McpClientOptions,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
  McpInvalidToolWarning,
  McpProtocol,
  McpRetryOptions,
  McpToolChangedWarning,
  McpToolInfo,
  McpUncheckedPatternWarning,
  McpUnreachableOptions,
  McpWarning,
} from './types.js';
