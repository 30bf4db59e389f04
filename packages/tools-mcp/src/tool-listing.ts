import type { JsonSchema } from '@agcore/tools-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from './connection.js';
import { McpToolError } from './mcp-tool-error.js';
import type { McpToolAnnotations } from './tool-permissions.js';
import type { McpToolInfo } from './types.js';

/** What the listing needs from its client. */
export interface ListingSettings {
  readonly serverName: string;
  /** The time limit of one page. */
  timeoutMs(): number;
  /** Age after which the cache is listed again (`undefined`: until the server says it changed). */
  readonly ttlMs: number | undefined;
  /** Told the new list after a change the server announced. */
  readonly onChanged: ((tools: readonly McpToolInfo[]) => void) | undefined;
  /** Receives failures of background listings. */
  report(error: unknown): void;
}

interface Cache {
  readonly connection: McpConnection;
  readonly tools: readonly McpToolInfo[];
  readonly fetchedAt: number;
  stale: boolean;
}

interface Fetch {
  readonly connection: McpConnection;
  readonly promise: Promise<readonly McpToolInfo[]>;
  stale: boolean;
}

/**
 * The tool list of one client: every page, cached per connection, listed again when the
 * server says it changed or after `ttlMs`.
 */
export class ToolListing {
  private cache: Cache | undefined;
  private fetching: Fetch | undefined;

  constructor(private readonly settings: ListingSettings) {}

  /** The tools, from the cache when it is fresh. @throws {McpToolError} as the listing does. */
  get(connection: McpConnection): Promise<readonly McpToolInfo[]> {
    const cache = this.cache;
    if (cache !== undefined && cache.connection === connection && !cache.stale) {
      const ttl = this.settings.ttlMs;
      if (ttl === undefined || Date.now() - cache.fetchedAt < ttl)
        return Promise.resolve(cache.tools);
    }
    return this.fetch(connection);
  }

  /** Lists again, ignoring the cache. @throws {McpToolError} as the listing does. */
  refresh(connection: McpConnection): Promise<readonly McpToolInfo[]> {
    if (this.cache !== undefined) this.cache.stale = true;
    if (this.fetching !== undefined) this.fetching.stale = true;
    return this.fetch(connection);
  }

  /** The server said its tools changed: list again if anyone uses the list. Never throws. */
  changed(connection: McpConnection): void {
    const used = this.cache !== undefined || this.fetching !== undefined;
    if (this.cache !== undefined) this.cache.stale = true;
    if (this.fetching !== undefined) this.fetching.stale = true;
    if (!used && this.settings.onChanged === undefined) return;
    this.fetch(connection).then(
      (tools) => this.settings.onChanged?.(tools),
      (error: unknown) => this.settings.report(error),
    );
  }

  /** Forgets everything (a new connection, or none). Never throws. */
  reset(): void {
    this.cache = undefined;
    this.fetching = undefined;
  }

  private fetch(connection: McpConnection): Promise<readonly McpToolInfo[]> {
    const fetching = this.fetching;
    if (fetching !== undefined && fetching.connection === connection && !fetching.stale) {
      return fetching.promise;
    }
    const entry: Fetch = {
      connection,
      stale: false,
      promise: listAllPages(connection, this.settings).then(
        (tools) => {
          if (this.fetching === entry) this.fetching = undefined;
          this.cache = { connection, tools, fetchedAt: Date.now(), stale: entry.stale };
          return tools;
        },
        (error: unknown) => {
          if (this.fetching === entry) this.fetching = undefined;
          throw error;
        },
      ),
    };
    this.fetching = entry;
    return entry.promise;
  }
}

/** Every page of `tools/list`, following `nextCursor`. */
async function listAllPages(
  connection: McpConnection,
  settings: ListingSettings,
): Promise<readonly McpToolInfo[]> {
  const raw: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const timeoutMs = settings.timeoutMs();
    let page: Awaited<ReturnType<Client['listTools']>>;
    try {
      page = await connection.sdk.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: timeoutMs,
      });
    } catch (error) {
      throw connection.failure(error, { kind: 'list', timeoutMs });
    }
    raw.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (seen.has(cursor)) {
        throw new McpToolError(
          'mcp_error',
          `MCP server '${settings.serverName}' returned the tools/list cursor '${cursor}' twice; the list would never end. Report this to the server's authors.`,
          { serverName: settings.serverName },
        );
      }
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  // The SDK keeps output-schema validators of the last page only; give it every page.
  // SDK internals (checked against 1.32.2): `cacheToolMetadata` is a private method.
  const sdk = connection.sdk as unknown as { cacheToolMetadata?: (tools: Tool[]) => void };
  if (typeof sdk.cacheToolMetadata === 'function') sdk.cacheToolMetadata(raw);
  return Object.freeze(raw.map(toToolInfo));
}

function toToolInfo(tool: Tool): McpToolInfo {
  const annotations = tool.annotations;
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as JsonSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
    ...(annotations === undefined ? {} : { annotations: annotations as McpToolAnnotations }),
  };
}
