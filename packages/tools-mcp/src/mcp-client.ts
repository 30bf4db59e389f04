import type { JsonObject, JsonSchema, ToolProgress } from '@agcore/tools-core';
import { ToolError } from '@agcore/tools-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CallAbort } from './call-abort.js';
import { type McpToolResult, toToolResult } from './call-result.js';
import { type McpErrorCode, McpToolError } from './mcp-tool-error.js';
import { createMcpTools, type McpTool, type McpToolsOptions } from './mcp-tools.js';
import { StderrBuffer } from './stderr-buffer.js';
import { ObservedStdioTransport } from './stdio-process.js';
import type { McpToolAnnotations } from './tool-permissions.js';
import { describeTransport, type McpTransportConfig, redactUrl } from './transport-config.js';

/** A tool as the server lists it. */
export interface McpToolInfo {
  /** The tool's MCP name, used in `tools/call`. */
  readonly name: string;
  /** A display title, when the server gives one. */
  readonly title?: string;
  /** What the tool does. */
  readonly description?: string;
  /** JSON Schema of the arguments. */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of `structuredContent`, when the server declares one. */
  readonly outputSchema?: JsonSchema;
  /** The server's behaviour hints. */
  readonly annotations?: McpToolAnnotations;
}

/** Options of one `callTool`. */
export interface McpCallOptions {
  /** Aborting it sends `notifications/cancelled` and rejects with `cancelled`. */
  readonly signal?: AbortSignal;
  /** Time limit of this call (default: the client's `timeoutMs`). */
  readonly timeoutMs?: number;
  /**
   * Receives the server's progress notifications. With it, each notification restarts the
   * time limit, bounded by `maxTotalTimeoutMs` when given.
   */
  readonly onProgress?: (update: ToolProgress) => void;
  /** With `onProgress`: the longest the call may take in all (default: the client's). */
  readonly maxTotalTimeoutMs?: number;
}

/** An elicitation request from the server: it asks the user for input during a call. */
export interface McpElicitationRequest {
  /** `form`: fill `requestedSchema`; `url`: visit `url` out of band. */
  readonly mode: 'form' | 'url';
  /** What to tell the user. */
  readonly message: string;
  /** For `form`: the flat JSON Schema of the answer. */
  readonly requestedSchema?: JsonObject;
  /** For `url`: where to send the user. */
  readonly url?: string;
  /** For `url`: the server's id of this elicitation. */
  readonly elicitationId?: string;
}

/** The user's answer to an elicitation. Fields left out of `content` get the schema's defaults. */
export type McpElicitationResult =
  | {
      readonly action: 'accept';
      readonly content?: { readonly [field: string]: string | number | boolean | string[] };
    }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/** Answers elicitation requests; a thrown error is sent back to the server as an error. */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  context: { readonly serverName: string; readonly signal: AbortSignal },
) => Promise<McpElicitationResult> | McpElicitationResult;

/** Options of automatic reconnection after the server dies. */
export interface McpAutoReconnectOptions {
  /** Attempts before giving up (default 3). */
  readonly maxAttempts?: number;
  /** Wait before the first attempt, doubled after each failure (default 500 ms). */
  readonly initialDelayMs?: number;
}

/** Options of `McpClient`. */
export interface McpClientOptions {
  /** Time limit of every request to the server, in ms (default 30 000). */
  readonly timeoutMs?: number;
  /** Time limit of `connect()` (start-up and initialize), in ms (default: `timeoutMs`). */
  readonly connectTimeoutMs?: number;
  /** Upper bound of a call whose limit is restarted by progress (default: none). */
  readonly maxTotalTimeoutMs?: number;
  /** Age after which the cached tool list is fetched again (default: kept until list_changed). */
  readonly toolsTtlMs?: number;
  /**
   * Reconnect by itself when the server dies or closes the connection (default off). Calls
   * in flight when it died are rejected, never replayed; calls made while reconnecting wait.
   */
  readonly autoReconnect?: boolean | McpAutoReconnectOptions;
  /** Stdio: how long `close()` waits at each step (stdin closed, SIGTERM, SIGKILL); default 1000 ms. */
  readonly closeGraceMs?: number;
  /** Stdio: how much of the server's stderr is kept for error reports (default 64 KiB). */
  readonly stderrLimitBytes?: number;
  /** Stdio: the longest message line accepted from the server (default 10 MiB, the SDK's). */
  readonly maxMessageBytes?: number;
  /** Answers the server's elicitation requests. Without it the client declares no elicitation. */
  readonly onElicitation?: McpElicitationHandler;
  /** Called with the new list after the server said its tools changed and they were re-listed. */
  readonly onToolsChanged?: (tools: readonly McpToolInfo[]) => void;
  /** Stdio: receives the server's stderr as it comes (it is captured either way). */
  readonly onStderr?: (text: string) => void;
  /** Receives failures that no call could be rejected with: bad lines, failed background refreshes. */
  readonly onError?: (error: Error) => void;
  /** How this client introduces itself (default `{ name: 'agcore', version: '0.1.0' }`). */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

interface Connection {
  readonly sdk: Client;
  readonly transport: Transport;
  readonly stdio: ObservedStdioTransport | undefined;
  readonly http: StreamableHTTPClientTransport | undefined;
  readonly stderr: StderrBuffer;
  closedByUs: boolean;
  timedOut: boolean;
  /** Why the client stopped a stdio server it could no longer talk to. */
  fatal: { readonly error: Error; readonly what: string } | undefined;
  lost: McpToolError | undefined;
  /** Calls in flight that listen to progress. */
  progressCalls: number;
  /** HTTP: a ping is checking whether the server is still there. */
  checking: boolean;
  /** HTTP: why the server was found unreachable, when it was. */
  unreachable: string | undefined;
}

interface ToolCache {
  readonly connection: Connection;
  readonly tools: readonly McpToolInfo[];
  readonly fetchedAt: number;
  stale: boolean;
}

interface Listing {
  readonly connection: Connection;
  readonly promise: Promise<readonly McpToolInfo[]>;
  stale: boolean;
}

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
  private timeoutMs: number;
  /** The options of a call with none of its own: one frozen object, not one per call. */
  private defaultRequest: RequestOptions;
  private current: Connection | undefined;
  private state: 'idle' | 'connected' | 'lost' | 'closed' = 'idle';
  private opening: Promise<Connection> | undefined;
  private closing: Promise<void> | undefined;
  private lostError: McpToolError | undefined;
  private epoch = 0;
  private cache: ToolCache | undefined;
  private listing: Listing | undefined;

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
    this.defaultRequest = Object.freeze({ timeout: this.timeoutMs });
    if (options.connectTimeoutMs !== undefined)
      checkDuration('connectTimeoutMs', options.connectTimeoutMs);
  }

  /**
   * Sets the time limit of every later request (the SDK's own default, 60 s, never applies).
   *
   * @throws {TypeError} when `ms` is not a positive number.
   */
  withTimeout(ms: number): this {
    this.timeoutMs = checkDuration('timeoutMs', ms);
    this.defaultRequest = Object.freeze({ timeout: this.timeoutMs });
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
    const connection = await this.ready(undefined);
    const cache = this.cache;
    if (cache !== undefined && cache.connection === connection && !cache.stale) {
      const ttl = this.options.toolsTtlMs;
      if (ttl === undefined || Date.now() - cache.fetchedAt < ttl) return cache.tools;
    }
    return this.fetchTools(connection);
  }

  /**
   * Lists every tool again, ignoring the cache.
   *
   * @throws {McpToolError} as `listTools()` does.
   */
  async refreshTools(): Promise<readonly McpToolInfo[]> {
    const connection = await this.ready(undefined);
    if (this.cache !== undefined) this.cache.stale = true;
    if (this.listing !== undefined) this.listing.stale = true;
    return this.fetchTools(connection);
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
    const connection =
      this.state === 'connected' && this.current !== undefined
        ? this.current
        : await this.ready(name);
    let request = this.defaultRequest;
    let abort: CallAbort | undefined;
    let onProgress: ((update: ToolProgress) => void) | undefined;
    if (options !== undefined) {
      const signal = options.signal;
      const timeout = options.timeoutMs;
      onProgress = options.onProgress;
      if (signal !== undefined || onProgress !== undefined || timeout !== undefined) {
        if (signal?.aborted === true) throw this.cancelledError(name);
        const timeoutMs =
          timeout === undefined ? this.timeoutMs : checkDuration('timeoutMs', timeout);
        abort = signal === undefined ? undefined : CallAbort.follow(signal);
        // One literal with every field, so that the SDK always sees objects of one shape.
        request = {
          timeout: timeoutMs,
          signal: abort?.sdkSignal(),
          onprogress: onProgress === undefined ? undefined : progressForwarder(onProgress),
          resetTimeoutOnProgress: onProgress !== undefined,
          maxTotalTimeout:
            onProgress === undefined
              ? undefined
              : (options.maxTotalTimeoutMs ?? this.options.maxTotalTimeoutMs),
        };
        if (onProgress !== undefined) connection.progressCalls++;
      }
    }
    let raw: Awaited<ReturnType<Client['callTool']>>;
    try {
      raw = await connection.sdk.callTool({ name, arguments: args }, undefined, request);
    } catch (error) {
      throw this.mapError(error, connection, {
        operation: 'call',
        toolName: name,
        timeout: request.timeout ?? this.timeoutMs,
        aborted: abort?.aborted === true,
      });
    } finally {
      abort?.release();
      if (onProgress !== undefined) connection.progressCalls--;
    }
    if (raw.isError !== true || this.transport.type === 'stdio') {
      return toToolResult(raw, this.serverName, name);
    }
    try {
      return toToolResult(raw, this.serverName, name);
    } catch (error) {
      // A server's error text goes to the model: never with the caller's header values in it.
      const failed = error as McpToolError;
      throw new McpToolError(failed.code as McpErrorCode, this.scrub(failed.message), {
        serverName: this.serverName,
        toolName: name,
      });
    }
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
  async tools(options: McpToolsOptions = {}): Promise<McpTool[]> {
    return createMcpTools(this, await this.listTools(), options);
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
    this.cache = undefined;
    this.listing = undefined;
    const connection = this.current;
    this.current = undefined;
    if (connection === undefined) return;
    const closing = this.shutdown(connection);
    this.closing = closing;
    try {
      await closing;
    } finally {
      this.closing = undefined;
    }
  }

  private async ready(toolName: string | undefined): Promise<Connection> {
    if (this.state === 'connected' && this.current !== undefined) return this.current;
    if (this.opening !== undefined) {
      try {
        return await this.opening;
      } catch (error) {
        if (ToolError.isInstance(error)) throw error;
        throw this.mcpError('mcp_error', `MCP server '${this.serverName}' could not reconnect.`, {
          cause: error,
        });
      }
    }
    if (this.state === 'lost' && this.lostError !== undefined) {
      const lost = this.lostError;
      throw new McpToolError(
        'mcp_error',
        `${lost.message} It is unavailable: call reconnect() to connect again.`,
        {
          serverName: this.serverName,
          ...(toolName === undefined ? {} : { toolName }),
          ...(lost.exitCode === undefined ? {} : { exitCode: lost.exitCode }),
          ...(lost.signal === undefined ? {} : { signal: lost.signal }),
          ...(lost.stderr === undefined ? {} : { stderr: lost.stderr }),
          cause: lost,
        },
      );
    }
    throw new McpToolError(
      'mcp_not_initialized',
      this.state === 'closed'
        ? `MCP client '${this.serverName}' is closed: call connect() to open it again.`
        : `MCP client '${this.serverName}' is not connected: call connect() first.`,
      { serverName: this.serverName, ...(toolName === undefined ? {} : { toolName }) },
    );
  }

  private async open(): Promise<Connection> {
    const epoch = this.epoch;
    let connection: Connection;
    try {
      connection = await this.openTransport(this.transport);
    } catch (error) {
      const config = this.transport;
      if (
        config.type === 'streamable-http' &&
        config.fallbackToSse !== false &&
        error instanceof McpToolError &&
        error.cause instanceof StreamableHTTPError &&
        (error.cause.code === 400 || error.cause.code === 404 || error.cause.code === 405)
      ) {
        connection = await this.openTransport({
          type: 'sse',
          url: config.url,
          ...(config.headers === undefined ? {} : { headers: config.headers }),
        });
      } else {
        throw error;
      }
    }
    if (epoch !== this.epoch) {
      await this.shutdown(connection);
      throw this.mcpError(
        'mcp_error',
        `MCP client '${this.serverName}' was closed while it was connecting.`,
      );
    }
    this.current = connection;
    this.state = 'connected';
    this.lostError = undefined;
    this.cache = undefined;
    this.listing = undefined;
    return connection;
  }

  private async openTransport(config: McpTransportConfig): Promise<Connection> {
    const stderr = new StderrBuffer(this.options.stderrLimitBytes ?? 64 * 1024);
    let transport: Transport;
    let stdio: ObservedStdioTransport | undefined;
    let http: StreamableHTTPClientTransport | undefined;
    if (config.type === 'stdio') {
      stdio = new ObservedStdioTransport(config, this.options.maxMessageBytes ?? 10 * 1024 * 1024);
      const stream = stdio.stderr;
      if (stream !== null) {
        stream.on('data', (chunk: Buffer | string) => {
          const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
          stderr.append(text);
          this.options.onStderr?.(text);
        });
        stream.on('error', () => {
          // A broken stderr pipe only loses diagnostics.
        });
      }
      transport = stdio;
    } else {
      const url = toUrl(config.url, this.serverName);
      const requestInit =
        config.headers === undefined ? undefined : { headers: { ...config.headers } };
      if (config.type === 'sse') {
        transport = new SSEClientTransport(url, requestInit === undefined ? {} : { requestInit });
      } else {
        http = new StreamableHTTPClientTransport(
          url,
          requestInit === undefined ? {} : { requestInit },
        );
        transport = http;
      }
    }
    const handler = this.options.onElicitation;
    const sdk = new Client(this.options.clientInfo ?? defaultClientInfo, {
      capabilities: handler === undefined ? {} : { elicitation: { form: { applyDefaults: true } } },
    });
    const connection: Connection = {
      sdk,
      transport,
      stdio,
      http,
      stderr,
      closedByUs: false,
      timedOut: false,
      fatal: undefined,
      lost: undefined,
      progressCalls: 0,
      checking: false,
      unreachable: undefined,
    };
    sdk.onclose = () => this.handleClose(connection);
    sdk.onerror = (error) => this.handleTransportError(connection, error);
    stdio?.onExit(() => {
      // Reported when the pipes close; recorded here so the report has the exit code.
    });
    sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.handleToolsChanged(connection);
    });
    if (handler !== undefined) {
      sdk.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
        const params = request.params;
        const result = await handler(
          {
            mode: params.mode === 'url' ? 'url' : 'form',
            message: params.message,
            ...('requestedSchema' in params && params.requestedSchema !== undefined
              ? { requestedSchema: params.requestedSchema as unknown as JsonObject }
              : {}),
            ...('url' in params && typeof params.url === 'string' ? { url: params.url } : {}),
            ...('elicitationId' in params && typeof params.elicitationId === 'string'
              ? { elicitationId: params.elicitationId }
              : {}),
          },
          { serverName: this.serverName, signal: extra.signal },
        );
        return result.action === 'accept'
          ? {
              action: 'accept' as const,
              ...(result.content === undefined ? {} : { content: { ...result.content } }),
            }
          : { action: result.action };
      });
    }
    const connectTimeout = this.options.connectTimeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => {
      connection.timedOut = true;
      void this.shutdown(connection);
    }, connectTimeout);
    try {
      await sdk.connect(transport, { timeout: connectTimeout });
    } catch (error) {
      const mapped = this.mapError(error, connection, {
        operation: 'connect',
        timeout: connectTimeout,
        aborted: false,
      });
      await this.shutdown(connection);
      throw mapped;
    } finally {
      clearTimeout(timer);
    }
    deliverProgressBeforeResponses(connection);
    return connection;
  }

  private fetchTools(connection: Connection): Promise<readonly McpToolInfo[]> {
    const listing = this.listing;
    if (listing !== undefined && listing.connection === connection && !listing.stale) {
      return listing.promise;
    }
    const entry: Listing = {
      connection,
      stale: false,
      promise: this.fetchAllPages(connection).then(
        (tools) => {
          if (this.listing === entry) this.listing = undefined;
          if (this.current === connection) {
            this.cache = { connection, tools, fetchedAt: Date.now(), stale: entry.stale };
          }
          return tools;
        },
        (error: unknown) => {
          if (this.listing === entry) this.listing = undefined;
          throw error;
        },
      ),
    };
    this.listing = entry;
    return entry.promise;
  }

  private async fetchAllPages(connection: Connection): Promise<readonly McpToolInfo[]> {
    const raw: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      let page: Awaited<ReturnType<Client['listTools']>>;
      try {
        page = await connection.sdk.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: this.timeoutMs,
        });
      } catch (error) {
        throw this.mapError(error, connection, {
          operation: 'list',
          timeout: this.timeoutMs,
          aborted: false,
        });
      }
      raw.push(...page.tools);
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (seen.has(cursor)) {
          throw this.mcpError(
            'mcp_error',
            `MCP server '${this.serverName}' returned the tools/list cursor '${cursor}' twice; the list would never end. Report this to the server's authors.`,
          );
        }
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    // The SDK keeps output-schema validators of the last page only; give it every page
    // (a private method in 1.32; skipped if a later SDK drops it).
    const sdk = connection.sdk as unknown as { cacheToolMetadata?: (tools: Tool[]) => void };
    if (typeof sdk.cacheToolMetadata === 'function') sdk.cacheToolMetadata(raw);
    return Object.freeze(raw.map(toToolInfo));
  }

  private handleToolsChanged(connection: Connection): void {
    if (connection !== this.current) return;
    const hadList = this.cache !== undefined || this.listing !== undefined;
    if (this.cache !== undefined) this.cache.stale = true;
    if (this.listing !== undefined) this.listing.stale = true;
    if (!hadList && this.options.onToolsChanged === undefined) return;
    this.fetchTools(connection).then(
      (tools) => this.options.onToolsChanged?.(tools),
      (error: unknown) => this.report(error),
    );
  }

  private handleTransportError(connection: Connection, error: Error): void {
    if (connection.closedByUs) return;
    const stdio = connection.stdio;
    if (stdio !== undefined && connection.fatal === undefined) {
      if (/ReadBuffer exceeded maximum size/.test(error.message)) {
        // The SDK drops the stream and takes seconds to stop the child: stop it now.
        connection.fatal = {
          error,
          what: `sent a message the client could not accept (${error.message}) and was stopped`,
        };
        stdio.child?.kill('SIGKILL');
      } else if (isBrokenPipe(error) && stdio.isRunning()) {
        // The server closed its stdin: no request can reach it any more, and calls already
        // written would wait for their time limit. Stop it, which rejects them now.
        connection.fatal = {
          error,
          what: `closed its stdin, so no request can reach it (${errorCode(error) ?? error.message}), and was stopped`,
        };
        stdio.terminate(this.options.closeGraceMs ?? 1000);
      }
    }
    if (stdio === undefined) this.checkReachable(connection);
    this.report(
      this.mcpError('mcp_error', `MCP server '${this.serverName}': ${this.scrub(error.message)}`, {
        cause: this.scrubError(error),
      }),
    );
  }

  /**
   * HTTP: a stream broke or a request failed. If the server no longer answers a ping at the
   * network level (refused, reset), the session is gone with it: close the connection, which
   * rejects the calls in flight now (their response streams will never deliver) and marks the
   * client unavailable, as a dead stdio server does. A live server answers and nothing changes.
   */
  private checkReachable(connection: Connection): void {
    if (connection.checking || connection.closedByUs || connection.lost !== undefined) return;
    if (connection !== this.current) return;
    connection.checking = true;
    connection.sdk.ping({ timeout: Math.min(this.timeoutMs, 10_000) }).then(
      () => {
        connection.checking = false;
      },
      (error: unknown) => {
        connection.checking = false;
        if (connection.closedByUs || connection.lost !== undefined) return;
        // A slow answer is no proof of a dead server: calls keep their own time limits.
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return;
        const cause =
          error instanceof Error ? (error.cause as { message?: unknown } | undefined) : undefined;
        const reason = error instanceof Error ? error.message : String(error);
        connection.unreachable = this.scrub(
          typeof cause?.message === 'string' && cause.message !== ''
            ? `${reason}: ${cause.message}`
            : reason,
        );
        connection.sdk.close().catch(() => {
          // Closing a broken HTTP session has nothing left to report.
        });
      },
    );
  }

  private handleClose(connection: Connection): void {
    if (connection.closedByUs || connection.lost !== undefined) return;
    const lost = this.describeLoss(connection);
    connection.lost = lost;
    if (connection !== this.current) return;
    this.current = undefined;
    this.state = 'lost';
    this.lostError = lost;
    this.cache = undefined;
    this.listing = undefined;
    const auto = this.options.autoReconnect;
    if (auto !== undefined && auto !== false) {
      const settings = auto === true ? {} : auto;
      const opening = this.reconnectLoop(settings.maxAttempts ?? 3, settings.initialDelayMs ?? 500);
      this.opening = opening;
      opening.then(
        () => {
          if (this.opening === opening) this.opening = undefined;
        },
        (error: unknown) => {
          if (this.opening === opening) this.opening = undefined;
          this.report(error);
        },
      );
    }
  }

  private async reconnectLoop(maxAttempts: number, initialDelayMs: number): Promise<Connection> {
    const epoch = this.epoch;
    let delay = initialDelayMs;
    let last: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (epoch !== this.epoch) break;
      try {
        return await this.open();
      } catch (error) {
        last = error;
        delay *= 2;
      }
    }
    const reason = last instanceof Error ? ` Last error: ${last.message}` : '';
    const failed = this.mcpError(
      'mcp_error',
      `MCP server '${this.serverName}' died and ${maxAttempts} reconnection attempt(s) failed.${reason}`,
      { cause: last },
    );
    if (epoch === this.epoch) this.lostError = failed;
    throw failed;
  }

  private describeLoss(connection: Connection): McpToolError {
    const exit = connection.stdio?.exit;
    const stderr = connection.stderr.tail();
    let what: string;
    if (connection.fatal !== undefined) {
      what = connection.fatal.what;
      if (exit?.code !== null && exit?.code !== undefined) {
        what += ` (it exited with code ${exit.code})`;
      }
    } else if (exit !== undefined) {
      what =
        exit.signal !== null
          ? `was killed by signal ${exit.signal}`
          : `exited with code ${String(exit.code)}`;
    } else if (connection.unreachable !== undefined) {
      what = `became unreachable (${connection.unreachable})`;
    } else {
      what = 'closed the connection';
    }
    return new McpToolError(
      'mcp_error',
      `MCP server '${this.serverName}' (${describeTransport(this.transport)}) ${what}.${
        stderr === '' ? '' : ` Its stderr ended with: ${stderr}`
      }`,
      {
        serverName: this.serverName,
        ...(exit === undefined ? {} : { exitCode: exit.code, signal: exit.signal }),
        ...(stderr === '' ? {} : { stderr }),
        ...(connection.fatal === undefined ? {} : { cause: connection.fatal.error }),
      },
    );
  }

  private mapError(
    error: unknown,
    connection: Connection,
    context: {
      readonly operation: 'connect' | 'list' | 'call';
      readonly toolName?: string;
      readonly timeout: number;
      readonly aborted: boolean;
    },
  ): McpToolError {
    if (error instanceof McpToolError) return error;
    const toolName = context.toolName;
    const subject =
      context.operation === 'call'
        ? `Call to MCP tool '${toolName}' on server '${this.serverName}'`
        : context.operation === 'list'
          ? `Listing the tools of MCP server '${this.serverName}'`
          : `Connecting to MCP server '${this.serverName}' (${describeTransport(this.transport)})`;
    const base = {
      serverName: this.serverName,
      cause: this.scrubError(error),
      ...(toolName === undefined ? {} : { toolName }),
    };
    if (context.aborted) {
      return new McpToolError('cancelled', `${subject} was cancelled.`, base);
    }
    const lost = connection.lost;
    if (
      connection.timedOut ||
      (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    ) {
      const stderr = context.operation === 'connect' ? connection.stderr.tail() : '';
      return new McpToolError(
        'mcp_timeout',
        `${subject} got no answer within ${context.timeout} ms. Raise timeoutMs${
          context.operation === 'connect' ? ' or connectTimeoutMs' : ''
        } if the server is slow, or check that it is healthy.${
          stderr === '' ? '' : ` Its stderr ended with: ${stderr}`
        }`,
        { ...base, ...(stderr === '' ? {} : { stderr }) },
      );
    }
    const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
    if (closed || (lost !== undefined && connection.stdio !== undefined)) {
      const loss = lost ?? this.describeLoss(connection);
      if (connection.closedByUs && lost === undefined) {
        return new McpToolError('mcp_error', `${subject} failed: the client was closed.`, base);
      }
      return new McpToolError('mcp_error', `${subject} failed: ${loss.message}`, {
        ...base,
        ...(loss.exitCode === undefined ? {} : { exitCode: loss.exitCode }),
        ...(loss.signal === undefined ? {} : { signal: loss.signal }),
        ...(loss.stderr === undefined ? {} : { stderr: loss.stderr }),
      });
    }
    if (error instanceof McpError) {
      if (context.operation === 'call') {
        return new McpToolError(
          error.code === ErrorCode.InvalidParams ? 'invalid_arguments' : 'execution_failed',
          `${subject} failed: ${this.scrub(error.message)}`,
          base,
        );
      }
      return new McpToolError('mcp_error', `${subject} failed: ${this.scrub(error.message)}`, base);
    }
    const code = errorCode(error);
    let reason = error instanceof Error ? error.message : String(error);
    if (code === 'ENOENT' && this.transport.type === 'stdio') {
      reason = `the command '${this.transport.command}' was not found (ENOENT); check it is installed and on PATH`;
    } else if (code === 'EACCES' && this.transport.type === 'stdio') {
      reason = `the command '${this.transport.command}' is not executable (EACCES)`;
    } else if (error instanceof StreamableHTTPError && typeof error.code === 'number') {
      reason = `${reason} (HTTP ${error.code})`;
    } else {
      const cause =
        error instanceof Error
          ? (error.cause as { code?: unknown; message?: unknown } | undefined)
          : undefined;
      if (cause !== undefined && typeof cause.message === 'string' && cause.message !== '') {
        reason = `${reason} (${cause.message})`;
      }
    }
    reason = this.scrub(reason);
    const stderr = connection.stderr.tail();
    return new McpToolError(
      'mcp_error',
      `${subject} failed: ${reason}.${stderr === '' ? '' : ` Its stderr ended with: ${stderr}`}`,
      { ...base, ...(stderr === '' ? {} : { stderr }) },
    );
  }

  /**
   * The error as safe to keep in a `cause`: for HTTP, a copy (same prototype, so `instanceof`
   * and `code` still work) whose message, stack, string fields and causes have the header
   * values and URL secrets removed; the error itself when there was nothing to remove.
   */
  private scrubError(error: unknown, depth = 0): unknown {
    if (this.transport.type === 'stdio' || !(error instanceof Error) || depth > 4) return error;
    let changed = false;
    const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
    for (const key of Reflect.ownKeys(error)) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key);
      if (descriptor === undefined) continue;
      if ('value' in descriptor) {
        const value: unknown = descriptor.value;
        const scrubbed =
          typeof value === 'string'
            ? this.scrub(value)
            : key === 'cause'
              ? this.scrubError(value, depth + 1)
              : value;
        if (scrubbed !== value) changed = true;
        Object.defineProperty(copy, key, { ...descriptor, value: scrubbed });
      } else {
        Object.defineProperty(copy, key, descriptor);
      }
    }
    return changed ? copy : error;
  }

  /** Removes header values and URL secrets (credentials, query) from a message. */
  private scrub(text: string): string {
    const config = this.transport;
    if (config.type === 'stdio') return text;
    let result = text;
    const secrets: string[] = [];
    for (const value of Object.values(config.headers ?? {})) {
      secrets.push(value);
      const [, token] = /^\S+\s+(\S{4,})$/.exec(value) ?? [];
      if (token !== undefined) secrets.push(token);
    }
    try {
      const url = new URL(String(config.url));
      secrets.push(String(config.url), url.href);
      if (url.password !== '') secrets.push(url.password);
      if (url.search.length > 1) secrets.push(url.search.slice(1));
      for (const value of url.searchParams.values()) secrets.push(value);
    } catch {
      secrets.push(String(config.url));
    }
    secrets.sort((a, b) => b.length - a.length);
    for (const secret of secrets) {
      if (secret.length >= 4) result = result.split(secret).join('[redacted]');
    }
    return result;
  }

  private async shutdown(connection: Connection): Promise<void> {
    if (connection.closedByUs) return;
    connection.closedByUs = true;
    const grace = this.options.closeGraceMs ?? 1000;
    if (connection.http?.sessionId !== undefined) {
      try {
        await settleWithin(connection.http.terminateSession(), grace);
      } catch {
        // The server may be gone already; the session ends with it.
      }
    }
    if (connection.stdio !== undefined) await connection.stdio.stop(grace);
    try {
      await settleWithin(connection.sdk.close(), grace);
    } catch {
      // Nothing more can be released.
    }
  }

  private cancelledError(toolName: string): McpToolError {
    return new McpToolError(
      'cancelled',
      `Call to MCP tool '${toolName}' on server '${this.serverName}' was cancelled before it started.`,
      { serverName: this.serverName, toolName },
    );
  }

  private mcpError(
    code: 'mcp_error',
    message: string,
    extra: { readonly cause?: unknown } = {},
  ): McpToolError {
    return new McpToolError(code, message, { serverName: this.serverName, ...extra });
  }

  private report(error: unknown): void {
    const onError = this.options.onError;
    if (onError === undefined) return;
    try {
      onError(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A failing listener must not break the client.
    }
  }
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

/**
 * The SDK hands notifications to their handlers a microtask late but settles responses at
 * once, so the last progress notification of a call (sent just before its result) would find
 * its handler gone. While a call listens to progress, responses are delivered one microtask
 * later, after the notifications that preceded them.
 */
function deliverProgressBeforeResponses(connection: Connection): void {
  const transport = connection.transport;
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    if (
      connection.progressCalls > 0 &&
      'id' in message &&
      ('result' in message || 'error' in message)
    ) {
      queueMicrotask(() => deliver(message, extra));
    } else {
      deliver(message, extra);
    }
  };
}

/** Hands the SDK's progress notifications on as `ToolProgress`, without absent fields. */
function progressForwarder(
  onProgress: (update: ToolProgress) => void,
): NonNullable<RequestOptions['onprogress']> {
  return (progress) => {
    onProgress(
      progress.total === undefined && progress.message === undefined
        ? { progress: progress.progress }
        : {
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            ...(progress.message === undefined ? {} : { message: progress.message }),
          },
    );
  };
}

/** A write to a pipe whose reader is gone. */
function isBrokenPipe(error: Error): boolean {
  const code = errorCode(error);
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}

function checkDuration(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `McpClient: ${name} must be a positive number of milliseconds, got ${String(value)}.`,
    );
  }
  return value;
}

function toUrl(url: string | URL, serverName: string): URL {
  try {
    return new URL(String(url));
  } catch (error) {
    // No cause: Node's error carries the whole URL, tokens included.
    throw new McpToolError(
      'mcp_error',
      `MCP server '${serverName}': '${redactUrl(url)}' is not a valid URL (${
        error instanceof Error ? error.message : String(error)
      }).`,
      { serverName },
    );
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
