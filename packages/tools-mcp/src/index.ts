export type {
  McpAudioContent,
  McpContentBlock,
  McpEmbeddedResourceContent,
  McpImageContent,
  McpResourceLinkContent,
  McpTextContent,
  McpToolResult,
} from './call-result.js';
export { toToolResult } from './call-result.js';
export type {
  McpAutoReconnectOptions,
  McpCallOptions,
  McpClientOptions,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
  McpToolInfo,
} from './mcp-client.js';
export { McpClient } from './mcp-client.js';
export type { McpServerEntry } from './mcp-config.js';
export { parseMcpServersConfig } from './mcp-config.js';
export type {
  McpServerFailure,
  McpServersConnectResult,
  McpServersOptions,
  McpServersToolsResult,
} from './mcp-servers.js';
export { McpServers } from './mcp-servers.js';
export type { McpErrorCode, McpToolErrorOptions } from './mcp-tool-error.js';
export { McpToolError } from './mcp-tool-error.js';
export type { McpTool, McpToolFilter, McpToolsOptions } from './mcp-tools.js';
export { createMcpTools, toolPassesFilter } from './mcp-tools.js';
export { exposedToolName, maxToolNameLength, sanitizeToolName } from './tool-names.js';
export type { McpPermissionOverrides, McpToolAnnotations } from './tool-permissions.js';
export { permissionsFromAnnotations, resolvePermissions } from './tool-permissions.js';
export type {
  McpHttpTransportConfig,
  McpSseTransportConfig,
  McpStdioTransportConfig,
  McpTransportConfig,
} from './transport-config.js';
export { describeTransport, redactUrl } from './transport-config.js';
export type { TypegenOptions, TypegenServer } from './typegen.js';
export { generateToolTypes } from './typegen.js';
