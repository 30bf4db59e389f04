import { type JsonObject, type ToolContext, ToolError } from '@agcore/tools-core';
import {
  type CallDefaults,
  type CallPlan,
  checkDuration,
  defaultPlan,
  planCall,
  planToolCall,
} from './call-plan.js';
import type { McpToolResult } from './call-result.js';
import { runCall } from './call-run.js';
import { type ConnectionSettings, type McpConnection, openConnection } from './connection.js';
import { notStartedError, unavailableError } from './error-mapping.js';
import { McpToolError } from './mcp-tool-error.js';
import { type McpTool, type McpToolsOptions, mcpTools, type ToolHost } from './mcp-tools.js';
import { reconnectWithBackoff } from './reconnect.js';
import { Reporter } from './reporter.js';
import { ToolListing } from './tool-listing.js';
import { ToolPins } from './tool-pins.js';
import { ToolSchemas } from './tool-schemas.js';
import { type McpTransportConfig, transportRedactor } from './transport-config.js';
import type { McpCallOptions, McpClientOptions, McpToolInfo } from './types.js';

const defaultTimeoutMs = 30_000;
const defaultClientInfo = { name: 'agcore', version: '0.1.0' };

/**
 * A client of one MCP server, over stdio or Streamable HTTP, on the official SDK's `Client`.
 * Usable alone: `connect()`, `listTools()`, `callTool()`, `close()`; `tools()` turns the
 * server's tools into `BaseTool`s for a registry or an LLM loop.
 *
 * Every failure is a `ToolError` (an `McpToolError`, with `serverName`): `mcp_error`,
 * `mcp_not_initialized`, `mcp_timeout`, `cancelled`, `execution_failed`, `invalid_arguments`.
 */
export class McpClient {
  /** The name this server goes by in tool names and errors. */
  readonly serverName: string;
  /** How the server is reached. */
  readonly transport: McpTransportConfig;
  private readonly options: McpClientOptions;
  private readonly settings: ConnectionSettings;
  private readonly listing: ToolListing;
  private readonly host: ToolHost;
  private timeoutMs: number;
  /** The plan of a call with no options of its own: one frozen object, not one per call. */
  private plainCall: CallPlan;
  private callDefaults: CallDefaults;
  /** The live connection, while connected. */
  private current: McpConnection | undefined;
  private state: 'idle' | 'connected' | 'lost' | 'closed' = 'idle';
  private opening: Promise<McpConnection> | undefined;
  private closing: Promise<void> | undefined;
  private lostError: McpToolError | undefined;
  /** Incremented by `close()`: an attempt that started before it must not connect. */
  private epoch = 0;
  private readonly reporter: Reporter;
  private readonly pins: ToolPins;

  /**
   * Makes a client; nothing starts until `connect()`.
   *
   * @throws {TypeError} when `serverName` is empty or a timeout is not a positive number.
   */
  constructor(serverName: string, transport: McpTransportConfig, options: McpClientOptions = {}) {
    if (typeof serverName !== 'string' || serverName.trim() === '') {
      throw new TypeError('McpClient: serverName must be a non-empty string.');
    }
    this.serverName = serverName;
    this.transport = transport;
    this.options = options;
    this.timeoutMs = checkDuration('timeoutMs', options.timeoutMs ?? defaultTimeoutMs);
    this.plainCall = defaultPlan(this.timeoutMs);
    this.callDefaults = {
      timeoutMs: this.timeoutMs,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress === true,
      maxTotalTimeoutMs:
        options.maxTotalTimeoutMs === undefined
          ? undefined
          : checkDuration('maxTotalTimeoutMs', options.maxTotalTimeoutMs),
    };
    if (options.connectTimeoutMs !== undefined) {
      checkDuration('connectTimeoutMs', options.connectTimeoutMs);
    }
    this.settings = {
      serverName,
      transport,
      redact: transportRedactor(transport),
      clientInfo: options.clientInfo ?? defaultClientInfo,
      onElicitation: options.onElicitation,
      connectTimeoutMs: options.connectTimeoutMs ?? this.timeoutMs,
      pingTimeoutMs: () => this.timeoutMs,
      closeGraceMs: options.closeGraceMs ?? 1000,
      stderrLimitBytes: options.stderrLimitBytes ?? 64 * 1024,
      maxMessageBytes: options.maxMessageBytes ?? 10 * 1024 * 1024,
      onStderr: options.onStderr,
      schemas: new ToolSchemas(),
    };
    this.reporter = new Reporter(serverName, options.onError, options.onWarning);
    this.listing = new ToolListing({
      serverName,
      timeoutMs: () => this.timeoutMs,
      ttlMs: options.toolsTtlMs,
      onChanged: options.onToolsChanged,
      report: (error) => this.reporter.error(error),
      warn: (problem) => this.reporter.invalidTool(problem),
      schemas: this.settings.schemas,
      listed: (tools) => {
        for (const change of this.pins.check(tools)) {
          this.reporter.toolChanged(change, this.pins.blocks);
        }
      },
    });
    this.pins = new ToolPins(options.onToolChange ?? 'report');
    this.host = {
      serverName,
      trustAnnotations: options.trustAnnotations ?? transport.type === 'stdio',
      isBlocked: (name) => this.pins.isBlocked(name),
      listTools: () => this.listTools(),
      callTool: (name, args, context) => this.callInContext(name, args, context),
    };
  }

  /**
   * Sets the time limit of every later request (the SDK's own default, 60 s, never applies).
   *
   * @throws {TypeError} when `ms` is not a positive number.
   */
  withTimeout(ms: number): this {
    this.timeoutMs = checkDuration('timeoutMs', ms);
    this.plainCall = defaultPlan(this.timeoutMs);
    this.callDefaults = { ...this.callDefaults, timeoutMs: this.timeoutMs };
    return this;
  }

  /** Whether the client is connected and the server alive, as far as it knows. Never throws. */
  get isConnected(): boolean {
    return this.state === 'connected';
  }

  /** The server's name and version from the handshake, once connected. Never throws. */
  get serverVersion(): { readonly name: string; readonly version: string } | undefined {
    const version = this.current?.sdk.getServerVersion();
    return version === undefined ? undefined : { name: version.name, version: version.version };
  }

  /** The stdio server's process id, while it runs. Never throws. */
  get pid(): number | undefined {
    return this.current?.stdio?.pid ?? undefined;
  }

  /**
   * Starts the server (stdio) or opens the session (HTTP) and does the initialize handshake.
   * Does nothing when already connected; concurrent calls share one attempt.
   *
   * @throws {McpToolError} `mcp_error` at once when the command is missing, the server exits
   *   during start-up, or the URL refuses the connection (naming the server, the reason and
   *   the tail of its stderr); `mcp_timeout` when the handshake outlives `connectTimeoutMs`.
   */
  async connect(): Promise<void> {
    if (this.state === 'connected') return;
    if (this.opening !== undefined) {
      await this.opening;
      return;
    }
    if (this.closing !== undefined) await this.closing;
    const opening = this.open();
    this.opening = opening;
    try {
      await opening;
    } finally {
      if (this.opening === opening) this.opening = undefined;
    }
  }

  /**
   * Closes the connection if there is one and connects again, with a fresh session and a
   * fresh tool list. Calls in flight on the old connection are rejected, never replayed.
   *
   * @throws {McpToolError} as `connect()` does.
   */
  async reconnect(): Promise<void> {
    await this.close();
    await this.connect();
  }

  /**
   * Every tool of the server, following `nextCursor` through all pages, from the cache when
   * it is fresh (it is dropped on `notifications/tools/list_changed` and after `toolsTtlMs`).
   *
   * @throws {McpToolError} `mcp_not_initialized` before `connect()`, `mcp_error` when the server
   *   is gone or answers badly, `mcp_timeout` when a page outlives the time limit.
   */
  async listTools(): Promise<readonly McpToolInfo[]> {
    return this.listing.get(await this.ready(undefined));
  }

  /**
   * Lists every tool again, ignoring the cache.
   *
   * @throws {McpToolError} as `listTools()` does.
   */
  async refreshTools(): Promise<readonly McpToolInfo[]> {
    return this.listing.refresh(await this.ready(undefined));
  }

  /**
   * Calls a tool of the server.
   *
   * @throws {McpToolError} `execution_failed` (recoverable) when the server answers
   *   `isError: true`, with its text; `invalid_arguments` when it rejects the arguments with a
   *   JSON-RPC error; `cancelled` when `signal` aborts (the server is sent
   *   `notifications/cancelled`); `mcp_timeout` after the time limit; `mcp_error` when the
   *   server dies (naming its exit code or signal) or cannot be reached;
   *   `mcp_not_initialized` before `connect()` or after `close()`.
   * @throws {TypeError} when `options.timeoutMs` is not a positive number.
   */
  async callTool(
    name: string,
    args: JsonObject = {},
    options?: McpCallOptions,
  ): Promise<McpToolResult> {
    const connection = this.current ?? (await this.ready(name));
    const plan =
      options === undefined ? this.plainCall : planCall(options, this.callDefaults, this.plainCall);
    if ('notStarted' in plan) throw notStartedError(this.serverName, name, plan.reason);
    return runCall(connection, name, args, plan, this.settings);
  }

  /**
   * The server's tools as `BaseTool`s sharing this client: names optionally prefixed with the
   * server name and sanitised, permissions from annotations or overrides, filtered by
   * allow/block lists. Each tool's `execute` calls `callTool` with the context's signal and
   * progress.
   *
   * @throws {McpToolError} as `listTools()` does; `mcp_error` when two tool names collide
   *   after sanitising.
   * @throws {TypeError} when a permission override is an empty list.
   */
  tools(options: McpToolsOptions = {}): Promise<McpTool[]> {
    return mcpTools(this.host, options);
  }

  /**
   * Accepts the new definition of a tool that changed since this client first saw it: it is
   * pinned, and with `onToolChange: 'block'` it is back in `tools()` (and its `BaseTool`s run
   * again). Returns false when the tool's listed definition is the pinned one. Never throws.
   */
  acceptToolChange(name: string): boolean {
    return this.pins.accept(name);
  }

  /**
   * Ends the session: HTTP sends DELETE for the session; stdio closes the server's stdin and,
   * if it is still running after `closeGraceMs`, sends SIGTERM, then SIGKILL (at most about
   * 3 × `closeGraceMs` for a server that ignores SIGTERM). Pending calls reject with
   * `mcp_error`. Safe to call twice and concurrently. Never throws.
   */
  async close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.epoch++;
    this.state = 'closed';
    this.lostError = undefined;
    this.listing.reset();
    const connection = this.current;
    this.current = undefined;
    if (connection === undefined) return;
    const closing = connection.shutdown();
    this.closing = closing;
    try {
      await closing;
    } finally {
      this.closing = undefined;
    }
  }

  /** A `BaseTool` call: on the caller's clock (see `planToolCall`). */
  private async callInContext(
    name: string,
    args: JsonObject,
    context: ToolContext,
  ): Promise<McpToolResult> {
    const connection = this.current ?? (await this.ready(name));
    const plan = planToolCall(context);
    if ('notStarted' in plan) throw notStartedError(this.serverName, name, plan.reason);
    return runCall(connection, name, args, plan, this.settings);
  }

  private async ready(toolName: string | undefined): Promise<McpConnection> {
    if (this.current !== undefined) return this.current;
    if (this.opening !== undefined) {
      try {
        return await this.opening;
      } catch (error) {
        if (ToolError.isInstance(error)) throw error;
        throw new McpToolError(
          'mcp_error',
          `MCP server '${this.serverName}' could not reconnect.`,
          {
            serverName: this.serverName,
            cause: error,
          },
        );
      }
    }
    if (this.state === 'lost' && this.lostError !== undefined) {
      throw unavailableError(this.serverName, this.lostError, toolName);
    }
    throw new McpToolError(
      'mcp_not_initialized',
      this.state === 'closed'
        ? `MCP client '${this.serverName}' is closed: call connect() to open it again.`
        : `MCP client '${this.serverName}' is not connected: call connect() first.`,
      { serverName: this.serverName, ...(toolName === undefined ? {} : { toolName }) },
    );
  }

  private async open(): Promise<McpConnection> {
    const epoch = this.epoch;
    const connection = await openConnection(this.settings, {
      lost: (lostConnection, error) => this.handleLoss(lostConnection, error),
      toolsChanged: (changed) => {
        if (changed === this.current) this.listing.changed(changed);
      },
      report: (error) => this.reporter.error(error),
    });
    if (epoch !== this.epoch) {
      await connection.shutdown();
      throw new McpToolError(
        'mcp_error',
        `MCP client '${this.serverName}' was closed while it was connecting.`,
        { serverName: this.serverName },
      );
    }
    this.current = connection;
    this.state = 'connected';
    this.lostError = undefined;
    this.listing.reset();
    return connection;
  }

  private handleLoss(connection: McpConnection, error: McpToolError): void {
    if (connection !== this.current) return;
    this.current = undefined;
    this.state = 'lost';
    this.lostError = error;
    this.listing.reset();
    const auto = this.options.autoReconnect;
    if (auto === undefined || auto === false) return;
    const epoch = this.epoch;
    const opening = reconnectWithBackoff(
      this.serverName,
      auto === true ? {} : auto,
      () => this.open(),
      () => epoch !== this.epoch,
    ).catch((failed: unknown) => {
      if (epoch === this.epoch && failed instanceof McpToolError) this.lostError = failed;
      throw failed;
    });
    this.opening = opening;
    opening.then(
      () => {
        if (this.opening === opening) this.opening = undefined;
      },
      (failed: unknown) => {
        if (this.opening === opening) this.opening = undefined;
        this.reporter.error(failed);
      },
    );
  }
}
