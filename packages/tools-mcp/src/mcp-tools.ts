import type {
  BaseTool,
  JsonObject,
  JsonSchema,
  JsonValue,
  Permission,
  ToolContext,
} from '@agcore/tools-core';
import { McpToolError } from './mcp-tool-error.js';
import { exposedToolName } from './tool-names.js';
import {
  type McpPermissionOverrides,
  type McpToolAnnotations,
  needsApprovalFromAnnotations,
  permissionListProblem,
  resolvePermissions,
} from './tool-permissions.js';
import type { McpToolInfo } from './types.js';

/** What the tools of `McpClient.tools()` need of their client. */
export interface ToolHost {
  /** The server's name. */
  readonly serverName: string;
  /** Whether annotations decide permissions (`McpClientOptions.trustAnnotations`). */
  readonly trustAnnotations: boolean;
  /** Whether a changed definition keeps this tool out (`onToolChange: 'block'`). */
  isBlocked(mcpName: string): boolean;
  /** The server's tools. */
  listTools(): Promise<readonly McpToolInfo[]>;
  /** Calls a tool on the caller's clock (`context.signal`, `context.deadline`); resolves its value. */
  callTool(name: string, args: JsonObject, context: ToolContext): Promise<JsonValue>;
}

/** Chooses tools by MCP name: exact strings or regular expressions. */
export interface McpToolFilter {
  /** Only these tools (default: all). */
  readonly allow?: readonly (string | RegExp)[];
  /** Never these tools (applied after `allow`). */
  readonly block?: readonly (string | RegExp)[];
}

/** Options of `McpClient.tools()`. */
export interface McpToolsOptions {
  /**
   * Prefix tool names: `true` uses the server name (`server__tool`), a string uses itself,
   * `false` (the default) leaves names as the server gives them (sanitised).
   */
  readonly prefix?: boolean | string;
  /** Permissions instead of the derived ones: one list for all, or per MCP tool name. */
  readonly permissions?: McpPermissionOverrides;
  /** Which tools to expose. */
  readonly filter?: McpToolFilter;
  /**
   * `true`: each tool gets `needsApproval` from its annotations (see
   * `needsApprovalFromAnnotations`: a tool not hinted read-only, or hinted destructive, needs a
   * person's approval before the LLM loop runs it) when the server is trusted
   * (`trustAnnotations`); every tool of an untrusted server needs approval. Default: no tool
   * carries `needsApproval`.
   */
  readonly needsApproval?: boolean;
}

/** A `BaseTool` backed by a tool of an MCP server. */
export interface McpTool extends BaseTool<JsonObject, JsonValue> {
  /** The tool's name on the server, used for the call. */
  readonly mcpName: string;
  /** The server it belongs to. */
  readonly serverName: string;
  /** The server's behaviour hints, as given. */
  readonly annotations?: McpToolAnnotations;
  /** The permissions the tool requires (derived or configured); never empty. */
  readonly requiredPermissions: readonly Permission[];
  /** Whether its calls need a person's approval; set when `tools({ needsApproval: true })`. */
  readonly needsApproval?: boolean;
}

/** Tells whether `name` passes `filter`. Never throws. */
function toolPassesFilter(name: string, filter: McpToolFilter | undefined): boolean {
  if (filter === undefined) return true;
  const matches = (pattern: string | RegExp): boolean =>
    typeof pattern === 'string' ? pattern === name : pattern.test(name);
  if (filter.allow !== undefined && !filter.allow.some(matches)) return false;
  if (filter.block?.some(matches) === true) return false;
  return true;
}

/**
 * The tools of `host`'s server as `McpTool`s (what `McpClient.tools()` returns).
 *
 * @throws {McpToolError} as listing the tools does; `mcp_error` when two tools get the same
 *   name after sanitising (both MCP names are in the message: block one with `filter` or use
 *   another prefix).
 * @throws {TypeError} when a permission override is an empty list (a tool that requires
 *   nothing would pass any `PermissionChecker` that allows unspecified tools).
 */
export async function mcpTools(host: ToolHost, options: McpToolsOptions = {}): Promise<McpTool[]> {
  const listed = await host.listTools();
  return createMcpTools(
    host,
    listed.filter((info) => !host.isBlocked(info.name)),
    options,
  );
}

/** `McpTool`s for `infos`, all calling through `client` (see `mcpTools`). */
export function createMcpTools(
  client: ToolHost,
  infos: readonly McpToolInfo[],
  options: McpToolsOptions = {},
): McpTool[] {
  const prefix =
    options.prefix === true
      ? client.serverName
      : typeof options.prefix === 'string'
        ? options.prefix
        : undefined;
  checkOverrides(client.serverName, options.permissions);
  const { needsApproval } = options;
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean') {
    throw new TypeError(
      `McpClient.tools() on server '${client.serverName}': needsApproval must be true or false, got ${typeof needsApproval}.`,
    );
  }
  const byName = new Map<string, string>();
  const tools: McpTool[] = [];
  for (const info of infos) {
    if (!toolPassesFilter(info.name, options.filter)) continue;
    const name = exposedToolName(info.name, prefix);
    const previous = byName.get(name);
    if (previous !== undefined) {
      throw new McpToolError(
        'mcp_error',
        `MCP server '${client.serverName}': tools '${previous}' and '${info.name}' both become '${name}' after sanitising to [a-zA-Z0-9_-]. Block one with the tool filter or choose another prefix.`,
        { serverName: client.serverName, toolName: info.name },
      );
    }
    byName.set(name, info.name);
    tools.push(
      makeTool(
        client,
        info,
        name,
        resolvePermissions(
          info.name,
          info.annotations,
          options.permissions,
          client.trustAnnotations,
        ),
        needsApproval === true
          ? needsApprovalFromAnnotations(client.trustAnnotations ? info.annotations : undefined)
          : undefined,
      ),
    );
  }
  return tools;
}

function makeTool(
  client: ToolHost,
  info: McpToolInfo,
  name: string,
  permissions: Permission[],
  needsApproval: boolean | undefined,
): McpTool {
  const mcpName = info.name;
  const parameters: JsonSchema = normaliseSchema(info.inputSchema);
  return Object.freeze({
    name,
    mcpName,
    serverName: client.serverName,
    description:
      info.description ?? info.title ?? `MCP tool '${mcpName}' of server '${client.serverName}'.`,
    parameters,
    schemaTrust: 'untrusted',
    requiredPermissions: Object.freeze(permissions),
    ...(info.annotations === undefined ? {} : { annotations: info.annotations }),
    ...(needsApproval === undefined ? {} : { needsApproval }),
    execute(args: JsonObject, context: ToolContext): Promise<JsonValue> {
      if (client.isBlocked(mcpName))
        return Promise.reject(blockedError(client.serverName, mcpName));
      return client.callTool(mcpName, args ?? {}, context);
    },
  });
}

function checkOverrides(serverName: string, overrides: McpPermissionOverrides | undefined): void {
  if (overrides === undefined) return;
  const perTool = overrides as { readonly [mcpToolName: string]: unknown };
  const lists: [string, unknown][] = Array.isArray(overrides)
    ? [['every tool', overrides]]
    : Object.keys(perTool).map((tool) => [`tool '${tool}'`, perTool[tool]]);
  for (const [what, list] of lists) {
    const problem = permissionListProblem(list);
    if (problem !== undefined) {
      throw new TypeError(
        `McpClient.tools() on server '${serverName}': the permission override for ${what} ${problem}. Leave a tool out of the overrides to keep the permissions derived from its annotations.`,
      );
    }
  }
}

function blockedError(serverName: string, mcpName: string): McpToolError {
  return new McpToolError(
    'permission_denied',
    `MCP tool '${mcpName}' of server '${serverName}' changed its definition since it was first seen, and onToolChange is 'block': review the new definition and call acceptToolChange('${mcpName}') on the client to use it.`,
    { serverName, toolName: mcpName },
  );
}

/** Chat Completions wants an object schema with `properties`; MCP servers sometimes omit it. */
function normaliseSchema(schema: JsonSchema): JsonSchema {
  if (schema.type === 'object' && schema.properties === undefined) {
    return { ...schema, properties: {} };
  }
  return schema;
}
