import { readFile } from 'node:fs/promises';
import { type McpServerEntry, parseMcpServersConfig } from '../config/mcp-config.js';
import { McpToolError } from '../mcp-tool-error.js';
import { sanitizeToolName } from '../tool-names.js';
import type { McpPermissionOverrides } from '../tool-permissions.js';
import type { McpTool, McpToolFilter, McpToolsOptions } from '../tools/mcp-tools.js';
import type { McpClientOptions } from '../types.js';
import { McpClient } from './mcp-client.js';

/** Options of `McpServers`. */
export interface McpServersOptions {
  /** Options given to every `McpClient` (a server's own `timeoutMs` wins). */
  readonly client?: McpClientOptions;
  /** Time limit of each server's connect, in ms (default 30 000). */
  readonly connectTimeoutMs?: number;
  /** Per-server permission overrides and filters, on top of those in the file. */
  readonly servers?: {
    readonly [name: string]: {
      readonly permissions?: McpPermissionOverrides;
      readonly filter?: McpToolFilter;
    };
  };
}

/** A server that could not be connected, and why. */
export interface McpServerFailure {
  /** The server's name in the configuration. */
  readonly name: string;
  /** What went wrong (`mcp_error` or `mcp_timeout`, naming the server). */
  readonly error: McpToolError;
}

/** What `McpServers.connect()` achieved. */
export interface McpServersConnectResult {
  /** Servers now connected. */
  readonly connected: readonly string[];
  /** Servers that failed, with the reason; the others work regardless. */
  readonly failed: readonly McpServerFailure[];
}

/** What `McpServers.collectTools()` found. */
export interface McpServersToolsResult {
  /** The tools of every server that listed them, prefixed `server__tool`. */
  readonly tools: McpTool[];
  /** Servers that were connected but could not give their tools, with the reason. */
  readonly failed: readonly McpServerFailure[];
}

/**
 * Many MCP servers from the standard `mcpServers` JSON (Claude Desktop, Cursor, VS Code),
 * connected in parallel; their tools come prefixed with the server name (`server__tool`).
 *
 * @example
 * const servers = await McpServers.fromFile('mcp.json');
 * const { failed } = await servers.connect();
 * const tools = await servers.tools(); // BaseTool[] for a registry
 */
export class McpServers {
  private readonly entries: readonly McpServerEntry[];
  private readonly options: McpServersOptions;
  private readonly clientsByName = new Map<string, McpClient>();

  /**
   * Checks the configuration and makes a client per server; nothing starts until `connect()`.
   *
   * @throws {McpToolError} `mcp_error` for an invalid configuration or two server names that
   *   sanitise to the same prefix.
   */
  constructor(config: unknown, options: McpServersOptions = {}) {
    this.entries = parseMcpServersConfig(config);
    this.options = options;
    const prefixes = new Map<string, string>();
    for (const entry of this.entries) {
      const prefix = sanitizeToolName(entry.name);
      const other = prefixes.get(prefix);
      if (other !== undefined) {
        throw new McpToolError(
          'mcp_error',
          `MCP configuration: servers '${other}' and '${entry.name}' both give the tool prefix '${prefix}'. Rename one.`,
          { serverName: entry.name },
        );
      }
      prefixes.set(prefix, entry.name);
      const clientOptions: McpClientOptions = {
        ...options.client,
        ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }),
        ...(entry.trustAnnotations === undefined
          ? {}
          : { trustAnnotations: entry.trustAnnotations }),
        ...(entry.onToolChange === undefined ? {} : { onToolChange: entry.onToolChange }),
        ...(entry.protocol === undefined ? {} : { protocol: entry.protocol }),
        connectTimeoutMs: options.connectTimeoutMs ?? options.client?.connectTimeoutMs ?? 30_000,
      };
      this.clientsByName.set(entry.name, new McpClient(entry.name, entry.transport, clientOptions));
    }
  }

  /**
   * Reads an `mcpServers` JSON file.
   *
   * @throws {McpToolError} `mcp_error` when the file cannot be read or parsed, or is invalid.
   */
  static async fromFile(path: string, options: McpServersOptions = {}): Promise<McpServers> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new McpToolError(
        'mcp_error',
        `MCP configuration: cannot read '${path}': ${(error as Error).message}.`,
        {
          serverName: '(config)',
          cause: error,
        },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new McpToolError(
        'mcp_error',
        `MCP configuration: '${path}' is not valid JSON: ${(error as Error).message}.`,
        {
          serverName: '(config)',
          cause: error,
        },
      );
    }
    return new McpServers(json, options);
  }

  /** The server names, in configuration order. Never throws. */
  get names(): readonly string[] {
    return [...this.clientsByName.keys()];
  }

  /** The client of one server, or `undefined`. Never throws. */
  get(name: string): McpClient | undefined {
    return this.clientsByName.get(name);
  }

  /**
   * Connects every server in parallel, each within the connect time limit. Never throws: a
   * server that fails is reported in `failed` and the others stay connected.
   */
  async connect(): Promise<McpServersConnectResult> {
    const names = this.names;
    const results = await Promise.allSettled(
      names.map((name) => this.clientsByName.get(name)?.connect()),
    );
    const connected: string[] = [];
    const failed: McpServerFailure[] = [];
    results.forEach((result, index) => {
      const name = names[index] ?? '';
      if (result.status === 'fulfilled') {
        connected.push(name);
      } else {
        const error =
          result.reason instanceof McpToolError
            ? result.reason
            : new McpToolError(
                'mcp_error',
                `MCP server '${name}' failed to connect: ${String(result.reason)}`,
                {
                  serverName: name,
                  cause: result.reason,
                },
              );
        failed.push({ name, error });
      }
    });
    return { connected, failed };
  }

  /**
   * The tools of every connected server, prefixed `server__tool`, with each server's
   * permissions and filter. A server whose listing fails (or that died since it connected) is
   * left out and reported to `onError` of the client options; `collectTools()` returns those
   * failures instead.
   *
   * @throws {McpToolError} `mcp_error` when two tools still collide after prefixing.
   */
  async tools(): Promise<McpTool[]> {
    const { tools, failed } = await this.collectTools();
    const onError = this.options.client?.onError;
    for (const failure of failed) {
      try {
        onError?.(failure.error);
      } catch {
        // A failing listener must not cost the caller the other servers' tools.
      }
    }
    return tools;
  }

  /**
   * As `tools()`, and which servers could not give their tools and why: a listing that failed,
   * a server that died since it connected. Servers that never connected are not in `failed`
   * (`connect()` reported them).
   *
   * @throws {McpToolError} `mcp_error` when two tools still collide after prefixing.
   */
  async collectTools(): Promise<McpServersToolsResult> {
    const connected = [...this.clientsByName.entries()];
    const lists = await Promise.allSettled(
      connected.map(([name, client]) => client.tools(this.toolsOptionsFor(name))),
    );
    const tools: McpTool[] = [];
    const failed: McpServerFailure[] = [];
    const seen = new Map<string, McpTool>();
    lists.forEach((result, index) => {
      const name = connected[index]?.[0] ?? '';
      if (result.status === 'rejected') {
        const reason: unknown = result.reason;
        if (reason instanceof McpToolError && reason.code === 'mcp_not_initialized') return;
        failed.push({
          name,
          error:
            reason instanceof McpToolError
              ? reason
              : new McpToolError(
                  'mcp_error',
                  `MCP server '${name}' could not list its tools: ${String(reason)}`,
                  { serverName: name, cause: reason },
                ),
        });
        return;
      }
      for (const tool of result.value) {
        const other = seen.get(tool.name);
        if (other !== undefined) {
          throw new McpToolError(
            'mcp_error',
            `MCP tools '${other.serverName}/${other.mcpName}' and '${tool.serverName}/${tool.mcpName}' both become '${tool.name}'. Filter one out.`,
            { serverName: connected[index]?.[0] ?? tool.serverName, toolName: tool.mcpName },
          );
        }
        seen.set(tool.name, tool);
        tools.push(tool);
      }
    });
    return { tools, failed };
  }

  /** The `tools()` options of one server: prefixed, with its permissions and filter. */
  private toolsOptionsFor(name: string): McpToolsOptions {
    const entry = this.entries.find((candidate) => candidate.name === name);
    const table = this.options.servers;
    // A server named 'constructor' must not get Object.prototype.constructor's fields.
    const extra = table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined;
    const permissions = extra?.permissions ?? entry?.permissions;
    const filter: McpToolFilter | undefined =
      extra?.filter ??
      (entry?.allow === undefined && entry?.block === undefined
        ? undefined
        : {
            ...(entry.allow === undefined ? {} : { allow: entry.allow }),
            ...(entry.block === undefined ? {} : { block: entry.block }),
          });
    return {
      prefix: true,
      ...(permissions === undefined ? {} : { permissions }),
      ...(filter === undefined ? {} : { filter }),
    };
  }

  /** Closes every server in parallel. Never throws. */
  async close(): Promise<void> {
    await Promise.all([...this.clientsByName.values()].map((client) => client.close()));
  }
}
