import type { EngineConnection, OfferingMethod } from '../engines/engine.js';
import { McpToolError } from '../mcp-tool-error.js';

/** How one list of offerings is fetched and checked. */
export interface OfferingListSpec<T> {
  readonly method: OfferingMethod;
  /** The field of each page that holds the items (`resources`, `resourceTemplates`, `prompts`). */
  readonly field: string;
  /** The item as the client hands it out, or a reason it is left out. */
  check(item: unknown): T | string;
  /** Told each settled listing (once per listing, not per get). */
  listed?(items: readonly T[]): void;
}

/** What a list needs from its client. */
export interface OfferingListSettings {
  readonly serverName: string;
  timeoutMs(): number;
  /** Told each item left out of a listing, and why. */
  warn(message: string): void;
}

interface Cached<T> {
  readonly connection: EngineConnection;
  readonly promise: Promise<readonly T[]>;
}

/**
 * One list of what a server offers (resources, resource templates, prompts): every page,
 * cached per connection until the server says it changed. Concurrent gets share one listing;
 * a change announced while a listing runs makes the next get list again.
 */
export class OfferingList<T> {
  private cached: Cached<T> | undefined;

  constructor(
    private readonly spec: OfferingListSpec<T>,
    private readonly settings: OfferingListSettings,
  ) {}

  /** The items, from the cache when there is one. @throws {McpToolError} as a request does. */
  get(connection: EngineConnection): Promise<readonly T[]> {
    const cached = this.cached;
    if (cached !== undefined && cached.connection === connection) return cached.promise;
    const promise = this.list(connection);
    const entry = { connection, promise };
    this.cached = entry;
    promise.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return promise;
  }

  /** Lists again at the next get (the server said the list changed, or the connection did). */
  reset(): void {
    this.cached = undefined;
  }

  private async list(connection: EngineConnection): Promise<readonly T[]> {
    const { method, field } = this.spec;
    const { serverName } = this.settings;
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const timeoutMs = this.settings.timeoutMs();
      let page: unknown;
      try {
        page = await connection.offering(method, cursor === undefined ? {} : { cursor }, timeoutMs);
      } catch (error) {
        throw connection.failure(error, { kind: 'offering', method, timeoutMs });
      }
      const listed = (page as Record<string, unknown> | undefined)?.[field];
      if (!Array.isArray(listed)) {
        throw new McpToolError(
          'mcp_error',
          `MCP server '${serverName}' answered ${method} without a '${field}' array.`,
          { serverName },
        );
      }
      for (const item of listed) {
        const checked = this.spec.check(item);
        if (typeof checked === 'string') {
          this.settings.warn(`MCP server '${serverName}': ${method} ${checked}; it is left out.`);
        } else items.push(checked);
      }
      const next = (page as { nextCursor?: unknown }).nextCursor;
      cursor = typeof next === 'string' ? next : undefined;
      if (cursor !== undefined) {
        if (seen.has(cursor)) {
          throw new McpToolError(
            'mcp_error',
            `MCP server '${serverName}' returned the ${method} cursor '${cursor}' twice; the list would never end. Report this to the server's authors.`,
            { serverName },
          );
        }
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    this.spec.listed?.(items);
    return Object.freeze(items);
  }
}
