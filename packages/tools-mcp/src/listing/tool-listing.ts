import type { EngineConnection, ToolsPage } from '../engines/engine.js';
import { McpToolError } from '../mcp-tool-error.js';
import { toolFingerprint } from '../pins/tool-fingerprint.js';
import type { ListedTool } from '../pins/tool-pins.js';
import type { ToolSchemas } from '../schemas/tool-schemas.js';
import type { McpToolInfo } from '../types.js';
import { checkTools, type ToolProblem } from './tool-validation.js';

/** What the listing needs from its client. */
export interface ListingSettings {
  readonly serverName: string;
  /** The time limit of one page. */
  timeoutMs(): number;
  /** Age after which the cache is listed again (`undefined`: until the server says it changed). */
  readonly ttlMs: number | undefined;
  /** Told the new list after a listing that found the tools changed. */
  readonly onChanged: ((tools: readonly McpToolInfo[]) => void) | undefined;
  /** Receives failures of background listings. */
  report(error: unknown): void;
  /** Told each tool of a listing that is left out, and why. */
  warn(problem: ToolProblem): void;
  /** Told each tool, with its fingerprint, of every settled listing (for pinning). */
  listed(tools: readonly ListedTool[]): void;
  /** Compiles the listed tools' schemas (a tool whose schema is refused is left out). */
  readonly schemas: ToolSchemas;
}

interface Cache {
  readonly connection: EngineConnection;
  readonly tools: readonly McpToolInfo[];
  readonly fetchedAt: number;
  stale: boolean;
}

/** A listing in flight. */
interface Round {
  readonly connection: EngineConnection;
  readonly promise: Promise<readonly McpToolInfo[]>;
  /** The server announced a change after this listing started: its result may be old. */
  stale: boolean;
}

/** The one listing that waits for the one in flight. */
interface Queued {
  readonly connection: EngineConnection;
  readonly promise: Promise<readonly McpToolInfo[]>;
  start(): void;
}

/**
 * The tool list of one client: every page, cached per connection, listed again when the
 * server says it changed or after `ttlMs`.
 *
 * A server cannot make the client list without bound: at most one listing is in flight and
 * one waits behind it, however many `notifications/tools/list_changed` arrive (10 000 of them
 * cost at most two listings), and `onChanged` hears once per settled listing that found the
 * list different from the one before.
 */
export class ToolListing {
  private cache: Cache | undefined;
  private round: Round | undefined;
  private queued: Queued | undefined;
  /** Names and fingerprints of the last list seen, to tell a change from a repeat. */
  private signature: string | undefined;
  /** The server announced a change before any list was seen. */
  private announced = false;
  /** The background listing whose failure is reported (one report per listing). */
  private watched: Promise<readonly McpToolInfo[]> | undefined;

  constructor(private readonly settings: ListingSettings) {}

  /** The tools, from the cache when it is fresh. @throws {McpToolError} as the listing does. */
  get(connection: EngineConnection): Promise<readonly McpToolInfo[]> {
    const cache = this.cache;
    if (cache !== undefined && cache.connection === connection && !cache.stale) {
      const ttl = shorter(this.settings.ttlMs, connection.toolsTtlMs);
      if (ttl === undefined || Date.now() - cache.fetchedAt < ttl)
        return Promise.resolve(cache.tools);
    }
    const round = this.round;
    if (round !== undefined && round.connection === connection && !round.stale)
      return round.promise;
    return this.next(connection);
  }

  /** Lists again, ignoring the cache. @throws {McpToolError} as the listing does. */
  refresh(connection: EngineConnection): Promise<readonly McpToolInfo[]> {
    if (this.cache !== undefined) this.cache.stale = true;
    return this.next(connection);
  }

  /** The server said its tools changed: list again if anyone uses the list. Never throws. */
  changed(connection: EngineConnection): void {
    const used = this.cache !== undefined || this.round !== undefined;
    if (this.cache !== undefined) this.cache.stale = true;
    if (this.round !== undefined) this.round.stale = true;
    if (this.signature === undefined) this.announced = true;
    if (!used && this.settings.onChanged === undefined) return;
    const listing = this.next(connection);
    if (listing === this.watched) return;
    this.watched = listing;
    listing.catch((error: unknown) => this.settings.report(error));
  }

  /** Forgets the cache and the listings (a new connection, or none). Never throws. */
  reset(): void {
    this.cache = undefined;
    this.round = undefined;
    this.queued = undefined;
  }

  /** A listing that starts now, or, when one is in flight, the one queued behind it. */
  private next(connection: EngineConnection): Promise<readonly McpToolInfo[]> {
    const round = this.round;
    if (round === undefined || round.connection !== connection) return this.start(connection);
    const queued = this.queued;
    if (queued !== undefined && queued.connection === connection) return queued.promise;
    let start: () => void = () => {};
    const promise = new Promise<readonly McpToolInfo[]>((resolve, reject) => {
      start = () => this.start(connection).then(resolve, reject);
    });
    this.queued = { connection, promise, start };
    return promise;
  }

  private start(connection: EngineConnection): Promise<readonly McpToolInfo[]> {
    const promise = listAllPages(connection, this.settings).then(
      (tools) => {
        // A listing that reset() abandoned (the connection changed) updates nothing.
        if (this.settle(round)) this.store(connection, tools, round.stale);
        return tools;
      },
      (error: unknown) => {
        this.settle(round);
        throw error;
      },
    );
    const round: Round = { connection, promise, stale: false };
    this.round = round;
    return promise;
  }

  /** A listing ended: the queued one, if any, starts. False when reset() abandoned it. */
  private settle(round: Round): boolean {
    if (this.round !== round) return false;
    this.round = undefined;
    const queued = this.queued;
    this.queued = undefined;
    queued?.start();
    return true;
  }

  private store(connection: EngineConnection, tools: readonly McpToolInfo[], stale: boolean): void {
    this.cache = { connection, tools, fetchedAt: Date.now(), stale };
    const fingerprinted = tools.map((tool) => ({
      name: tool.name,
      fingerprint: toolFingerprint(tool),
      info: tool,
    }));
    this.settings.listed(fingerprinted);
    const signature = JSON.stringify(
      fingerprinted.map(({ name, fingerprint }) => [name, fingerprint]),
    );
    const changed = this.signature === undefined ? this.announced : signature !== this.signature;
    this.signature = signature;
    this.announced = false;
    if (!changed || this.settings.onChanged === undefined) return;
    try {
      this.settings.onChanged(tools);
    } catch (error) {
      this.settings.report(error);
    }
  }
}

/** The shorter of two ages, `undefined` standing for "until the server says it changed". */
function shorter(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

/**
 * Every page of `tools/list`, following `nextCursor`. Each tool is checked on its own: the
 * invalid ones go to `warn` and are left out, the others are listed.
 */
async function listAllPages(
  connection: EngineConnection,
  settings: ListingSettings,
): Promise<readonly McpToolInfo[]> {
  const listed: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const timeoutMs = settings.timeoutMs();
    let page: ToolsPage;
    try {
      page = await connection.listPage(cursor, timeoutMs);
    } catch (error) {
      throw connection.failure(error, { kind: 'list', timeoutMs });
    }
    for (const tool of page.tools) listed.push(tool);
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
  const { valid, problems } = checkTools(listed, settings.serverName);
  await settings.schemas.load();
  const accepted = valid.filter((tool) => {
    const refused = settings.schemas.prepare(tool.info);
    if (refused === undefined) return true;
    problems.push({
      toolName: tool.info.name,
      message: `MCP server '${settings.serverName}': tool '${tool.info.name}' is left out of the tool list: ${refused}.`,
    });
    return false;
  });
  for (const problem of problems) settings.warn(problem);
  connection.useTools(accepted.map((tool) => tool.raw));
  return Object.freeze(accepted.map((tool) => tool.info));
}
