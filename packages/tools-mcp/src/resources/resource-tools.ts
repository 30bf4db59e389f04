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
import { permissionListProblem } from '../tool-permissions.js';
import type { OfferingsReader, ResourceView } from './resource-types.js';

/** Options of `McpClient.resourceTools()`. */
export interface McpResourceToolsOptions {
  /** Prefix the names with the server name (`true`) or this string, as `tools()` does. */
  readonly prefix?: boolean | string;
  /** The permissions both tools require (default `['read']`). */
  readonly permissions?: readonly Permission[];
  /** Ask the approval hook before each call (default false). */
  readonly needsApproval?: boolean;
}

/** A resource tool: `list_resources` or `read_resource` of one server. */
export interface McpResourceTool extends BaseTool<JsonObject, JsonValue> {
  readonly serverName: string;
  readonly requiredPermissions: readonly Permission[];
}

/**
 * The two tools that let a model read a server's resources: `list_resources` (the resources
 * and templates) and `read_resource` (`{ uri }`, within `maxResourceBytes`). `view` holds back
 * what the pins block (`onToolChange: 'block'`): changed entries, and reads of a changed
 * resource.
 *
 * @throws {TypeError} when `permissions` is empty or holds a non-permission.
 */
export function resourceTools(
  serverName: string,
  offerings: OfferingsReader,
  view: ResourceView,
  options: McpResourceToolsOptions = {},
): McpResourceTool[] {
  const permissions = options.permissions ?? ['read'];
  const problem = permissionListProblem(permissions);
  if (problem !== undefined) {
    throw new TypeError(`McpClient.resourceTools() on '${serverName}': permissions ${problem}.`);
  }
  const prefix =
    options.prefix === true
      ? serverName
      : typeof options.prefix === 'string'
        ? options.prefix
        : undefined;
  const common = {
    serverName,
    requiredPermissions: Object.freeze([...permissions]),
    schemaTrust: 'trusted' as const,
    ...(options.needsApproval === true ? { needsApproval: true } : {}),
  };
  const list: McpResourceTool = Object.freeze({
    ...common,
    name: exposedToolName('list_resources', prefix),
    description: `Lists the resources (and resource templates) of MCP server '${serverName}': each with its uri, name, description and MIME type. Read one with read_resource.`,
    parameters: { type: 'object', properties: {}, additionalProperties: false } as JsonSchema,
    async execute(_args: JsonObject, context: ToolContext): Promise<JsonValue> {
      notAborted(serverName, 'list_resources', context);
      const [resources, templates] = await Promise.all([
        offerings.listResources(),
        offerings.listResourceTemplates().catch(() => []),
      ]);
      return {
        resources: view.visible(resources),
        templates: view.visible(templates),
      } as unknown as JsonValue;
    },
  });
  const read: McpResourceTool = Object.freeze({
    ...common,
    name: exposedToolName('read_resource', prefix),
    description: `Reads one resource of MCP server '${serverName}' by its uri: text as text, binary as base64 with its MIME type.`,
    parameters: {
      type: 'object',
      properties: { uri: { type: 'string', description: 'The uri of the resource.' } },
      required: ['uri'],
      additionalProperties: false,
    } as JsonSchema,
    async execute(args: JsonObject, context: ToolContext): Promise<JsonValue> {
      notAborted(serverName, 'read_resource', context);
      const uri = args.uri;
      if (typeof uri !== 'string' || uri === '') {
        throw new McpToolError('invalid_arguments', 'read_resource: give the uri to read.', {
          serverName,
          toolName: 'read_resource',
        });
      }
      if (!view.readable(uri)) {
        throw new McpToolError(
          'denied',
          `read_resource of MCP server '${serverName}': the listed entry of '${uri}' changed since this client first saw it; it is held back until the application reviews it and calls acceptToolChange('list_resources').`,
          { serverName, toolName: 'read_resource' },
        );
      }
      const read = await offerings.readResource(uri);
      return read as unknown as JsonValue;
    },
  });
  return [list, read];
}

function notAborted(serverName: string, toolName: string, context: ToolContext): void {
  if (!context.signal.aborted) return;
  throw new McpToolError('cancelled', `${toolName} of MCP server '${serverName}' was cancelled.`, {
    serverName,
    toolName,
  });
}
