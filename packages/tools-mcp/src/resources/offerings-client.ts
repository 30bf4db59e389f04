import type { JsonObject } from '@agcore/tools-core';
import {
  type McpResourceTool,
  type McpResourceToolsOptions,
  resourceTools,
} from './resource-tools.js';
import type {
  McpPromptInfo,
  McpPromptMessage,
  McpResourceInfo,
  McpResourceRead,
  McpResourceTemplateInfo,
  McpResourceUpdated,
  OfferingsReader,
  ResourceView,
} from './resource-types.js';

/**
 * The resources and prompts half of `McpClient` (its base class): every method waits for the
 * connection as `listTools()` does and fails as it does (`mcp_not_initialized` before
 * `connect()`, `mcp_error`, `mcp_timeout` after the client's `timeoutMs`).
 */
export abstract class McpOfferingsClient {
  /** The name this server goes by in tool names and errors. */
  abstract readonly serverName: string;
  /** The client's resources and prompts. */
  protected abstract readonly offerings: OfferingsReader;
  /** What the resource pins let the model see and read. */
  protected abstract readonly resourceView: ResourceView;

  /**
   * Every resource of the server, all pages, cached until the server sends
   * `notifications/resources/list_changed` or the connection changes; malformed entries are
   * left out and reported through `onWarning`.
   *
   * @throws {McpToolError} as `listTools()` does.
   */
  listResources(): Promise<readonly McpResourceInfo[]> {
    return this.offerings.listResources();
  }

  /** Every resource template (RFC 6570 `uriTemplate`), paged and cached as `listResources()`. */
  listResourceTemplates(): Promise<readonly McpResourceTemplateInfo[]> {
    return this.offerings.listResourceTemplates();
  }

  /**
   * Reads one resource: text parts as `text`, binary ones as base64 `blob`, each with its MIME
   * type; never cached.
   *
   * @throws {McpResourceTooLargeError} when the decoded contents exceed `maxResourceBytes`.
   * @throws {McpToolError} `mcp_error` when the server refuses (an unknown URI) or answers badly.
   * @throws {TypeError} when `uri` is empty.
   */
  readResource(uri: string): Promise<McpResourceRead> {
    return this.offerings.readResource(uri);
  }

  /**
   * Subscribes to `notifications/resources/updated` of `uri`; `onUpdated` hears each. Resolves
   * to the unsubscribe (safe twice, never rejects). Subscriptions are sent again after a
   * reconnect.
   *
   * @throws {McpToolError} as `readResource()`, when the server refuses the subscription.
   */
  subscribeResource(uri: string, onUpdated: McpResourceUpdated): Promise<() => Promise<void>> {
    return this.offerings.subscribeResource(uri, onUpdated);
  }

  /** Every prompt of the server, paged and cached as `listResources()` (`prompts/list_changed`). */
  listPrompts(): Promise<readonly McpPromptInfo[]> {
    return this.offerings.listPrompts();
  }

  /**
   * The messages of a prompt, as chat messages llm-cycle takes:
   * `cycle.submitMessages(await client.getPrompt(name, args))`. Argument values that are not
   * strings are sent as JSON text (prompt arguments are strings in MCP).
   *
   * @throws {McpToolError} as `readResource()` does.
   */
  getPrompt(name: string, args?: JsonObject): Promise<readonly McpPromptMessage[]> {
    return this.offerings.getPrompt(name, args);
  }

  /**
   * The `list_resources` and `read_resource` tools, for a registry or an LLM loop: they require
   * `read` (or `permissions`), their results are JSON like any tool's (bounded by
   * `maxResourceBytes`; a loop spills a large one as it does any result). The server's part of
   * what `list_resources` shows is pinned like a tool's definition: a changed entry is a
   * `tool_changed` warning of `list_resources`, held back under `onToolChange: 'block'` until
   * `acceptToolChange('list_resources')`.
   *
   * @throws {TypeError} when `permissions` is empty or holds a non-permission.
   */
  resourceTools(options?: McpResourceToolsOptions): McpResourceTool[] {
    return resourceTools(this.serverName, this.offerings, this.resourceView, options);
  }
}
