import type { JsonObject, JsonValue, ToolContext } from '@agcore/tools-core';
import {
  type CallDefaults,
  type CallPlan,
  checkDuration,
  defaultPlan,
  planCall,
  planToolCall,
} from '../calls/call-plan.js';
import type { McpToolResult } from '../calls/call-result.js';
import { type RetryPolicy, retryPolicy, runWithRetry } from '../calls/call-retry.js';
import type { McpTransportConfig } from '../config/transport-config.js';
import type { ConnectionSettings, EngineConnection } from '../engines/engine.js';
import { notStartedError } from '../engines/error-mapping.js';
import { ToolListing } from '../listing/tool-listing.js';
import { ResourcePins, resourceViewToolName } from '../pins/resource-pins.js';
import { ToolPins } from '../pins/tool-pins.js';
import { maxResourceBytes, Offerings } from '../resources/offerings.js';
import { McpOfferingsClient } from '../resources/offerings-client.js';
import type { OfferingsReader, ResourceView } from '../resources/resource-types.js';
import { type McpTool, type McpToolsOptions, mcpTools, type ToolHost } from '../tools/mcp-tools.js';
import type { McpCallOptions, McpClientOptions, McpToolInfo } from '../types.js';
import { runCall, runCallForValue } from './call-run.js';
import { ClientLink } from './client-link.js';
import { connectionSettings } from './connection-settings.js';
import { Reporter } from './reporter.js';

const defaultTimeoutMs = 30_000;

/**
 * A client of one MCP server, over stdio or Streamable HTTP, on the official SDK's `Client`.
 * Usable alone: `connect()`, `listTools()`, `callTool()`, `close()`; `tools()` turns the
 * server's tools into `BaseTool`s for a registry or an LLM loop.
 *
 * Every failure is a `ToolError` (an `McpToolError`, with `serverName`): `mcp_error`,
 * `mcp_not_initialized`, `mcp_timeout`, `timeout`, `cancelled`, `permission_denied`,
 * `execution_failed`, `invalid_arguments` (the README's table says when).
 */
export class McpClient extends McpOfferingsClient {
  /** The name this server goes by in tool names and errors. */
  readonly serverName: string;
  /** How the server is reached. */
  readonly transport: McpTransportConfig;
  private readonly settings: ConnectionSettings;
  private readonly listing: ToolListing;
  private readonly host: ToolHost;
  private timeoutMs: number;
  /** The plan of a call with no options of its own: one frozen object, not one per call. */
  private plainCall: CallPlan;
  private callDefaults: CallDefaults;
  /** Which connection is live (`link.current`), through connect, loss and close. */
  private readonly link: ClientLink;
  private readonly reporter: Reporter;
  private readonly pins: ToolPins;
  /** The resource tools' view, pinned as tools are (same `onToolChange`). */
  private readonly resourcePins: ResourcePins;
  /** What the resource pins let the model see and read. */
  protected readonly resourceView: ResourceView;
  /** The client's `retry`, checked; `undefined`: calls are made once. */
  private readonly retry: RetryPolicy | undefined;
  protected readonly offerings: OfferingsReader;
  private readonly offeringsState: Offerings;

  /**
   * Makes a client; nothing starts until `connect()`.
   *
   * @throws {TypeError} when `serverName` is empty, a timeout is not a positive number, or
   *   `protocol` is not one of its values.
   */
  constructor(serverName: string, transport: McpTransportConfig, options: McpClientOptions = {}) {
    super();
    if (typeof serverName !== 'string' || serverName.trim() === '') {
      throw new TypeError('McpClient: serverName must be a non-empty string.');
    }
    this.serverName = serverName;
    this.transport = transport;
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
    this.retry = retryPolicy(options.retry);
    this.settings = connectionSettings(serverName, transport, options, () => this.timeoutMs);
    this.settings.schemas.onWarning = (toolName, message) =>
      this.reporter.uncheckedPattern(toolName, message);
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
    const resourcePins = new ResourcePins(options.onToolChange ?? 'report');
    this.resourcePins = resourcePins;
    this.resourceView = resourcePins;
    this.offeringsState = new Offerings({
      serverName,
      timeoutMs: () => this.timeoutMs,
      maxResourceBytes: maxResourceBytes(options.maxResourceBytes),
      ready: () => this.link.ready(undefined),
      warn: (message) => this.reporter.invalidOffering(message),
      report: (error) => this.reporter.error(error),
      listed: (list, items) => {
        for (const change of resourcePins.check(list, items)) {
          this.reporter.resourceChanged(change, resourcePins.blocks);
        }
      },
    });
    this.offerings = this.offeringsState;
    this.link = new ClientLink(this.settings, options.autoReconnect, {
      changed: (connection) => {
        this.listing.reset();
        this.pins.forget();
        this.offeringsState.connectionChanged(connection);
      },
      offeringChanged: (_connection, change) => this.offeringsState.changed(change),
      toolsChanged: (connection) => this.listing.changed(connection),
      report: (error) => this.reporter.error(error),
    });
    this.host = {
      serverName,
      trustAnnotations: options.trustAnnotations ?? transport.type === 'stdio',
      isBlocked: (name) => this.pins.isBlocked(name),
      usePrefix: (prefix) => this.pins.usePrefix(prefix),
      standing: (name) => this.pins.standing(name),
      current: (name) => this.pins.current(name),
      fingerprint: (name) => this.pins.fingerprint(name),
      listFor: async (name) => this.listing.get(await this.link.ready(name)),
      listTools: () => this.listTools(),
      callTool: (name, args, context) => this.callInContext(name, args, context),
    };
  }

  /**
   * Sets the client's limit of every later request of the protocol link (a listing page, a
   * ping, a direct `callTool`); the SDK's own default, 60 s, never applies.
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
    return this.link.isConnected;
  }

  /** The server's name and version from the handshake, once connected. Never throws. */
  get serverVersion(): { readonly name: string; readonly version: string } | undefined {
    return this.link.current?.serverVersion;
  }

  /**
   * The era of the protocol the connection speaks: `'legacy'` (2025-11-25 and before) or
   * `'modern'` (2026-07-28); `undefined` while not connected. Never throws.
   */
  get protocolEra(): 'legacy' | 'modern' | undefined {
    return this.link.current?.protocolEra;
  }

  /** The protocol revision the connection negotiated, such as `'2026-07-28'`. Never throws. */
  get protocolVersion(): string | undefined {
    return this.link.current?.protocolVersion;
  }

  /** The stdio server's process id, while it runs. Never throws. */
  get pid(): number | undefined {
    return this.link.current?.pid;
  }

  /**
   * Starts the server (stdio) or opens the session (HTTP) and does the initialize handshake.
   * Does nothing when already connected; concurrent calls share one attempt.
   *
   * @throws {McpToolError} `mcp_error` at once when the command is missing, the server exits
   *   during start-up, or the URL refuses the connection (naming the server, the reason and
   *   the tail of its stderr); `mcp_timeout` when the handshake outlives `connectTimeoutMs`.
   */
  connect(): Promise<void> {
    return this.link.connect();
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
   * Every valid tool of the server, following `nextCursor` through all pages, from the cache
   * when it is fresh (it is dropped on `notifications/tools/list_changed` and after
   * `toolsTtlMs`). Invalid tools, and tools whose schemas the schema compiler refuses, are left
   * out and reported once through `onWarning`.
   *
   * @throws {McpToolError} `mcp_not_initialized` before `connect()`, `mcp_error` when the server
   *   is gone or answers badly, `mcp_timeout` when a page outlives the time limit.
   */
  async listTools(): Promise<readonly McpToolInfo[]> {
    return this.listing.get(await this.link.ready(undefined));
  }

  /**
   * Lists every tool again, ignoring the cache.
   *
   * @throws {McpToolError} as `listTools()` does.
   */
  async refreshTools(): Promise<readonly McpToolInfo[]> {
    return this.listing.refresh(await this.link.ready(undefined));
  }

  /**
   * Calls a tool of the server, on the client's clock: `options.timeoutMs` or the client's
   * `timeoutMs`, restarted by progress only with `resetTimeoutOnProgress` (up to
   * `maxTotalTimeoutMs`).
   *
   * @throws {McpToolError} `execution_failed` (recoverable) when the server answers
   *   `isError: true`, with its text, or its structuredContent breaks the tool's outputSchema;
   *   `invalid_arguments` when it rejects the arguments with a JSON-RPC error; `cancelled` when
   *   `signal` aborts (`timeout` when its reason is a time limit; the server is sent
   *   `notifications/cancelled`); `mcp_timeout` after the time limit; `mcp_error` when the
   *   server dies (naming its exit code or signal) or cannot be reached;
   *   `mcp_not_initialized` before `connect()` or after `close()`.
   *   With `retry` (the option's or the client's), a call that is safe to repeat is made again
   *   after an `mcp_error`, within the same signal and time limit.
   * @throws {TypeError} when `timeoutMs` or `maxTotalTimeoutMs` is not a positive number, or
   *   `retry` is malformed.
   */
  callTool(name: string, args: JsonObject = {}, options?: McpCallOptions): Promise<McpToolResult> {
    let retry: RetryPolicy | undefined;
    try {
      retry = options?.retry === undefined ? this.retry : retryPolicy(options.retry);
    } catch (error) {
      return Promise.reject(error);
    }
    if (retry !== undefined) return this.callWithRetry(retry, name, args, options);
    const connection = this.link.current;
    if (connection === undefined) {
      return this.link.ready(name).then((ready) => this.startCall(ready, name, args, options));
    }
    try {
      return this.startCall(connection, name, args, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The server's tools as `BaseTool`s sharing this client: names optionally prefixed with the
   * server name and sanitised, permissions from annotations (of a trusted server) or
   * overrides, filtered by allow/block lists, without tools blocked by `onToolChange: 'block'`.
   * Each tool's `execute` runs on its caller's clock (`context.signal`, `context.deadline`)
   * and forwards progress to `context.progress`.
   *
   * @throws {McpToolError} as `listTools()` does; `mcp_error` when two tool names collide
   *   after sanitising.
   * @throws {TypeError} when a permission override is empty or holds a non-permission.
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
    const tool = this.pins.accept(name);
    const resources = name === resourceViewToolName && this.resourcePins.accept();
    return tool || resources;
  }

  /**
   * Ends the session: HTTP sends DELETE for the session; stdio closes the server's stdin and,
   * if it is still running after `closeGraceMs`, sends SIGTERM, then SIGKILL (at most about
   * 3 × `closeGraceMs` for a server that ignores SIGTERM). Pending calls reject with
   * `mcp_error`. Safe to call twice and concurrently. Never throws.
   */
  close(): Promise<void> {
    return this.link.close();
  }

  /** @throws {TypeError} for a bad time option; {McpToolError} for a call that cannot start. */
  private startCall(
    connection: EngineConnection,
    name: string,
    args: JsonObject,
    options: McpCallOptions | undefined,
  ): Promise<McpToolResult> {
    const planned =
      options === undefined ? this.plainCall : planCall(options, this.callDefaults, this.plainCall);
    if ('notStarted' in planned) throw notStartedError(this.serverName, name, planned.reason);
    const key = options?.idempotencyKey;
    const plan = key === undefined ? planned : { ...planned, idempotencyKey: key };
    return runCall(connection, name, args, plan, this.settings);
  }

  /** A direct call with retries: one time limit (`timeoutMs`) across every attempt. */
  private callWithRetry(
    policy: RetryPolicy,
    name: string,
    args: JsonObject,
    options: McpCallOptions | undefined,
  ): Promise<McpToolResult> {
    const timeout = options?.timeoutMs;
    const timeoutMs = timeout === undefined ? this.timeoutMs : checkDuration('timeoutMs', timeout);
    const deadline = Date.now() + timeoutMs;
    return runWithRetry(policy, {
      attempt: async () => {
        const connection = this.link.current ?? (await this.link.ready(name));
        const remainingMs = Math.max(1, deadline - Date.now());
        return this.startCall(connection, name, args, { ...options, timeoutMs: remainingMs });
      },
      safe: () => this.safeToRepeat(name, options?.idempotencyKey),
      signal: options?.signal,
      deadline,
      stopped: (reason) => notStartedError(this.serverName, name, reason),
    });
  }

  /** May the call run twice: it has an idempotency key, or its tool says `readOnlyHint` (taken at
   * its word, trusted or not: a server lying about it only repeats its own effect). Never rejects. */
  private async safeToRepeat(name: string, idempotencyKey: string | undefined): Promise<boolean> {
    if (idempotencyKey !== undefined) return true;
    try {
      const connection = this.link.current ?? (await this.link.ready(name));
      const tools = await this.listing.get(connection);
      return tools.find((tool) => tool.name === name)?.annotations?.readOnlyHint === true;
    } catch {
      return false;
    }
  }

  /** A `BaseTool` call: on the caller's clock (see `planToolCall`); resolves the value. */
  private callInContext(name: string, args: JsonObject, context: ToolContext): Promise<JsonValue> {
    const retry = this.retry;
    if (retry !== undefined) {
      const connect = async () => this.link.current ?? (await this.link.ready(name));
      return runWithRetry(retry, {
        attempt: async () => this.startInContext(await connect(), name, args, context),
        safe: () => this.safeToRepeat(name, context.idempotencyKey),
        signal: context.signal,
        deadline: context.deadline,
        stopped: (reason) => notStartedError(this.serverName, name, reason),
      });
    }
    const connection = this.link.current;
    if (connection === undefined) {
      return this.link.ready(name).then((ready) => this.startInContext(ready, name, args, context));
    }
    try {
      return this.startInContext(connection, name, args, context);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private startInContext(
    connection: EngineConnection,
    name: string,
    args: JsonObject,
    context: ToolContext,
  ): Promise<JsonValue> {
    const plan = planToolCall(context);
    if ('notStarted' in plan) throw notStartedError(this.serverName, name, plan.reason);
    return runCallForValue(connection, name, args, plan, this.settings);
  }
}
