import type {
  BaseTool,
  JsonObject,
  JsonSchema,
  JsonValue,
  Permission,
  ToolContext,
} from '@agcore/tools-core';
import { McpToolError } from '../mcp-tool-error.js';
import { exposedToolName } from '../tool-names.js';
import {
  type McpPermissionOverrides,
  type McpToolAnnotations,
  permissionListProblem,
  resolvePermissions,
} from '../tool-permissions.js';
import type { McpToolInfo } from '../types.js';
import { type GuardHost, ToolGuard } from './tool-guard.js';

/** What the tools of `McpClient.tools()` need of their client. */
export interface ToolHost extends GuardHost {
  /** The server's name. */
  readonly serverName: string;
  /** Whether annotations decide permissions (`McpClientOptions.trustAnnotations`). */
  readonly trustAnnotations: boolean;
  /** Whether a changed definition keeps this tool out (`onToolChange: 'block'`). */
  isBlocked(mcpName: string): boolean;
  /** Names with this prefix are handed out: pin them too (see `ToolPins.usePrefix`). */
  usePrefix(prefix: string | undefined): void;
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
   * `true`: each tool gets a `needsApproval` function that decides at call time from the
   * annotations the client knows now (see `needsApprovalFromAnnotations`: a tool not hinted
   * read-only, or hinted destructive, needs a person's approval before the LLM loop runs it)
   * when the server is trusted (`trustAnnotations`); every tool of an untrusted server, and a
   * tool that is blocked or no longer listed, needs approval. Default: no tool carries
   * `needsApproval`.
   */
  readonly needsApproval?: boolean;
}

/** A `BaseTool` backed by a tool of an MCP server. */
export interface McpTool extends BaseTool<JsonObject, JsonValue> {
  /** The tool's name on the server, used for the call. */
  readonly mcpName: string;
  /** The server it belongs to. */
  readonly serverName: string;
  /**
   * The server's behaviour hints, as given in the latest listing (as given when the tool was
   * made, while the tool is not listed).
   */
  readonly annotations?: McpToolAnnotations;
  /**
   * The permissions the tool requires (derived when it was made, or configured); never empty.
   * A registry checks them when the tool is registered: a later definition that needs more
   * makes `execute` refuse with `permission_denied` (call `tools()` again for a tool that
   * declares them).
   */
  readonly requiredPermissions: readonly Permission[];
  /**
   * Whether a call needs a person's approval, decided at call time from the definition the
   * client knows now; set when `tools({ needsApproval: true })`. Resolves (rather than
   * returns) after a reconnect, once the new connection's tools are listed.
   */
  readonly needsApproval?: McpNeedsApproval;
}

/**
 * `McpTool.needsApproval`: takes the call's arguments and context as any `needsApproval`
 * function does, and decides from the tool's listed definition alone.
 *
 * @throws {McpToolError} (rejects) as listing the tools does, after a reconnect.
 */
export type McpNeedsApproval = (
  args?: JsonObject,
  context?: ToolContext,
) => boolean | Promise<boolean>;

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
  host.usePrefix(prefixOf(host.serverName, options.prefix));
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
  const prefix = prefixOf(client.serverName, options.prefix);
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
    tools.push(makeTool(client, info, name, options.permissions, needsApproval === true));
  }
  return tools;
}

function makeTool(
  client: ToolHost,
  info: McpToolInfo,
  name: string,
  overrides: McpPermissionOverrides | undefined,
  needsApproval: boolean,
): McpTool {
  const mcpName = info.name;
  const parameters: JsonSchema = normaliseSchema(info.inputSchema);
  const permissions = Object.freeze(
    resolvePermissions(mcpName, info.annotations, overrides, client.trustAnnotations),
  );
  const guard = new ToolGuard(client, mcpName, permissions, !hasOverride(overrides, mcpName));
  return Object.freeze({
    name,
    mcpName,
    serverName: client.serverName,
    description:
      info.description ?? info.title ?? `MCP tool '${mcpName}' of server '${client.serverName}'.`,
    parameters,
    schemaTrust: 'untrusted',
    requiredPermissions: permissions,
    get annotations(): McpToolAnnotations | undefined {
      return guard.annotations(info);
    },
    ...(needsApproval
      ? {
          needsApproval: (_args?: JsonObject, context?: ToolContext) =>
            guard.needsApproval(context),
        }
      : {}),
    execute(args: JsonObject, context: ToolContext): Promise<JsonValue> {
      return guard.call(args, context);
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

/** The prefix of exposed names that `McpToolsOptions.prefix` asks for. */
function prefixOf(serverName: string, prefix: boolean | string | undefined): string | undefined {
  return prefix === true ? serverName : typeof prefix === 'string' ? prefix : undefined;
}

/** Whether the application set this tool's permissions (then a new definition changes none). */
function hasOverride(overrides: McpPermissionOverrides | undefined, mcpName: string): boolean {
  if (overrides === undefined) return false;
  if (Array.isArray(overrides)) return true;
  const perTool = overrides as {
    readonly [mcpToolName: string]: readonly Permission[] | undefined;
  };
  return Object.hasOwn(perTool, mcpName) && perTool[mcpName] !== undefined;
}

/** Chat Completions wants an object schema with `properties`; MCP servers sometimes omit it. */
function normaliseSchema(schema: JsonSchema): JsonSchema {
  if (schema.type === 'object' && schema.properties === undefined) {
    return { ...schema, properties: {} };
  }
  return schema;
}
