import { redactError, settleWithin } from '@agcore/tools-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RawCallResult } from '../../calls/call-result.js';
import type { McpTransportConfig } from '../../config/transport-config.js';
import { McpToolError } from '../../mcp-tool-error.js';
import type { ObservedStdioTransport } from '../../transport/stdio-process.js';
import { createTransport, httpStatusOf } from '../../transport/transports.js';
import { answerElicitations, elicitationCapabilities } from '../elicitation.js';
import type {
  CallParams,
  ConnectionEvents,
  ConnectionSettings,
  EngineConnection,
  OfferingMethod,
  ToolsPage,
} from '../engine.js';
import { errorCodeOf, lossError, mapFailure, type Operation } from '../error-mapping.js';
import { sendOffering } from '../offering-requests.js';
import { deliverProgressBeforeResponses } from '../progress-order.js';
import { StderrBuffer } from '../stderr-buffer.js';
import { ResponseStreams, streamCutResponse } from '../stream-cut.js';
import { modernRefusalOf, modernServerError } from './modern-refusal.js';
import { LenientListSchema, watchNotifications } from './offerings.js';
import { ReachabilityCheck } from './reachability-check.js';
import { ReportLimit } from './report-limit.js';

/**
 * Opens a connection to the configured server; a Streamable HTTP server that answers the first
 * POST with 400, 404 or 405 is tried again over HTTP+SSE (unless `fallbackToSse` is false),
 * except a 400 whose body is a 2026-07-28 refusal: that server is modern, not old.
 *
 * @throws {McpToolError} as `McpClient.connect()` documents.
 */
export async function openConnection(
  settings: ConnectionSettings,
  events: ConnectionEvents,
): Promise<McpConnection> {
  const config = settings.transport;
  try {
    return await McpConnection.open(settings, config, events);
  } catch (error) {
    const status = error instanceof McpToolError ? httpStatusOf(error.cause) : undefined;
    const refusal =
      status === 400 && error instanceof McpToolError ? modernRefusalOf(error.cause) : undefined;
    if (refusal !== undefined && error instanceof McpToolError) {
      throw modernServerError(settings.serverName, config, refusal, error.cause);
    }
    if (
      config.type !== 'streamable-http' ||
      config.fallbackToSse === false ||
      (status !== 400 && status !== 404 && status !== 405)
    ) {
      throw error;
    }
    return McpConnection.open(
      settings,
      {
        type: 'sse',
        url: config.url,
        ...(config.headers === undefined ? {} : { headers: config.headers }),
        ...(config.auth === undefined ? {} : { auth: config.auth }),
      },
      events,
    );
  }
}

/**
 * One live connection to a server: the SDK `Client`, its transport and, for stdio, the child
 * process. It owns its opening (with the connect time limit), notices its loss (process exit,
 * closed pipe, a server that no longer answers) and reports it once, and shuts down.
 */
export class McpConnection implements EngineConnection {
  readonly protocolEra = 'legacy';
  readonly toolsTtlMs = undefined;
  readonly sdk: Client;
  readonly transport: Transport;
  /** Stdio: the child process. */
  readonly stdio: ObservedStdioTransport | undefined;
  readonly stderr: StderrBuffer;
  /** Calls in flight that listen to progress. */
  progressCalls = 0;
  closedByUs = false;
  timedOut = false;
  lost: McpToolError | undefined;
  private readonly http: StreamableHTTPClientTransport | undefined;
  private fatal: { readonly error: Error; readonly what: string } | undefined;
  /** HTTP: the pings after failures, and the window that decides the server is unreachable. */
  private readonly reachability: ReachabilityCheck;
  private readonly reports = new ReportLimit(10, 10_000);
  private negotiated: string | undefined;

  private constructor(
    private readonly settings: ConnectionSettings,
    opened: Awaited<ReturnType<typeof createTransport>>,
    private readonly events: ConnectionEvents,
  ) {
    this.transport = opened.transport;
    this.stdio = opened.stdio;
    this.http = opened.http;
    this.stderr = new StderrBuffer(settings.stderrLimitBytes);
    this.reachability = new ReachabilityCheck(settings.unreachableAfter, {
      ping: () => this.sdk.ping({ timeout: Math.min(settings.pingTimeoutMs(), 10_000) }),
      over: () => this.closedByUs || this.lost !== undefined,
      redact: settings.redact,
      // Closing a broken HTTP session has nothing left to report; onclose reports the loss.
      unreachable: () => this.sdk.close().catch(() => {}),
    });
    const stream = this.stdio?.stderr;
    if (stream !== null && stream !== undefined) {
      stream.on('data', (chunk: Buffer | string) => {
        const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        this.stderr.append(text);
        settings.onStderr?.(text);
      });
      stream.on('error', () => {
        // A broken stderr pipe only loses diagnostics.
      });
    }
    const handler = settings.onElicitation;
    this.sdk = new Client(settings.clientInfo, {
      capabilities: elicitationCapabilities(handler),
      jsonSchemaValidator: settings.schemas,
    });
    this.sdk.onclose = () => this.handleClose();
    this.sdk.onerror = (error) => this.report(error);
    // SDK internals (checked against 1.32.2): Client.connect() keeps a transport's onerror and
    // calls it before its own, so this handler sees transport failures only, while sdk.onerror
    // sees them and the protocol's noise. sdk-internals.test.ts fails if that changes.
    this.transport.onerror = (error) => this.handleTransportError(error);
    // The v1 SDK keeps the negotiated version to itself; it hands it to the transport.
    const setVersion = this.transport.setProtocolVersion?.bind(this.transport);
    this.transport.setProtocolVersion = (version) => {
      this.negotiated = version;
      setVersion?.(version);
    };
    if (handler !== undefined) answerElicitations(this.sdk, handler, settings.serverName);
    watchNotifications(this.sdk, this, events, () => !this.closedByUs && this.lost === undefined);
  }

  /**
   * Starts the transport and does the initialize handshake within `connectTimeoutMs`.
   *
   * @throws {McpToolError} `mcp_error` or `mcp_timeout`; the connection is shut down then.
   */
  static async open(
    settings: ConnectionSettings,
    config: McpTransportConfig,
    events: ConnectionEvents,
  ): Promise<McpConnection> {
    // Streamable HTTP: a response stream cut mid-call fails that call at once.
    const streams =
      config.type === 'streamable-http' ? new ResponseStreams(settings.fetch) : undefined;
    const connection = new McpConnection(
      settings,
      await createTransport(
        config,
        streams === undefined ? settings : { ...settings, fetch: streams.fetch },
      ),
      events,
    );
    if (streams !== undefined) streams.onCut = (id) => connection.settleCut(id);
    const timeoutMs = settings.connectTimeoutMs;
    const timer = setTimeout(() => {
      connection.timedOut = true;
      void connection.shutdown();
    }, timeoutMs);
    try {
      await connection.sdk.connect(connection.transport, { timeout: timeoutMs });
    } catch (error) {
      const mapped = connection.failure(error, { kind: 'connect', timeoutMs });
      await connection.shutdown();
      throw mapped;
    } finally {
      clearTimeout(timer);
    }
    deliverProgressBeforeResponses(connection);
    return connection;
  }

  get isStdio(): boolean {
    return this.stdio !== undefined;
  }

  /**
   * The response stream of request `id` was cut: the request fails as cut (a retryable
   * `mcp_error`) once a reachability check is done, unless that check found the server
   * unreachable (then the loss, a more useful message, rejects it). Behind a balancer the
   * check may reach another, live node: one cut stream marks nothing lost.
   */
  settleCut(id: string | number): void {
    if (this.closedByUs) return;
    this.reachability.check(() => this.transport.onmessage?.(streamCutResponse(id)));
  }

  get protocolVersion(): string | undefined {
    return this.negotiated;
  }

  get serverVersion(): { readonly name: string; readonly version: string } | undefined {
    const version = this.sdk.getServerVersion();
    return version === undefined ? undefined : { name: version.name, version: version.version };
  }

  get pid(): number | undefined {
    return this.stdio?.pid ?? undefined;
  }

  listPage(cursor: string | undefined, timeoutMs: number): Promise<ToolsPage> {
    return this.answered(
      this.sdk.request(
        cursor === undefined
          ? { method: 'tools/list' }
          : { method: 'tools/list', params: { cursor } },
        LenientListSchema,
        { timeout: timeoutMs },
      ),
    );
  }

  useTools(tools: readonly unknown[]): void {
    // The SDK validates structuredContent against the outputSchema it cached for the tool; it
    // caches them in listTools(), which the listing does not use (one bad tool would fail it).
    // SDK internals (checked against 1.32.2): `cacheToolMetadata` is a private method;
    // sdk-internals.test.ts fails if it goes, and tool-listing.test.ts if validation stops.
    const sdk = this.sdk as unknown as { cacheToolMetadata?: (listed: readonly unknown[]) => void };
    if (typeof sdk.cacheToolMetadata === 'function') sdk.cacheToolMetadata(tools);
  }

  callTool(params: CallParams, options: RequestOptions): Promise<RawCallResult> {
    return this.answered(this.sdk.callTool(params, undefined, options) as Promise<RawCallResult>);
  }

  /** `request`, noting its answer: the server is reachable, the count of failures starts over. */
  private answered<T>(request: Promise<T>): Promise<T> {
    if (this.stdio !== undefined) return request;
    return request.then((result) => {
      this.reachability.answered();
      return result;
    });
  }

  offering(method: OfferingMethod, params: Record<string, unknown>, timeoutMs: number) {
    return sendOffering(this.sdk, method, params, timeoutMs);
  }

  /** The tail of the server's stderr. Never throws. */
  stderrTail(): string {
    return this.stderr.tail();
  }

  /** The error that says how this connection ended, from what is known now. Never throws. */
  describeLoss(): McpToolError {
    return lossError(this.settings, {
      exit: this.stdio?.exit,
      fatal: this.fatal,
      unreachable: this.reachability.reason,
      stderr: this.stderr.tail(),
    });
  }

  /** Maps a failed request of this connection to an `McpToolError`. Never throws. */
  failure(error: unknown, operation: Operation): McpToolError {
    return mapFailure(error, operation, this.settings, this);
  }

  /**
   * Ends the connection: HTTP sends DELETE for the session; stdio closes stdin, then SIGTERM,
   * then SIGKILL, `closeGraceMs` apart. Pending requests reject. Safe twice. Never throws.
   */
  async shutdown(): Promise<void> {
    if (this.closedByUs) return;
    this.closedByUs = true;
    const grace = this.settings.closeGraceMs;
    // The server may be gone already; the session ends with it either way.
    if (this.http?.sessionId !== undefined) await settleWithin(this.http.terminateSession(), grace);
    if (this.stdio !== undefined) await this.stdio.stop(grace);
    await settleWithin(this.sdk.close(), grace);
  }

  private handleClose(): void {
    if (this.closedByUs || this.lost !== undefined) return;
    this.lost = this.describeLoss();
    this.events.lost(this, this.lost);
  }

  /**
   * A failure of the transport itself (a broken pipe, a stream that dropped, a line over the
   * limit): it may mean the server is gone. Protocol noise (a progress notification for an
   * unknown token, say) never gets here, only to `report()`.
   */
  private handleTransportError(error: Error): void {
    if (this.closedByUs) return;
    const stdio = this.stdio;
    if (stdio === undefined) {
      this.reachability.check();
      return;
    }
    if (this.fatal !== undefined) return;
    // SDK internals (checked against 1.32.2): its ReadBuffer reports a line over
    // maxBufferSize with this text (mcp-client.faults.test.ts fails if it changes). The SDK
    // then drops the stream and takes seconds to stop the child: stop it now.
    if (/ReadBuffer exceeded maximum size/.test(error.message)) {
      this.fatal = {
        error,
        what: `sent a message the client could not accept (${error.message}) and was stopped`,
      };
      stdio.child?.kill('SIGKILL');
    } else if (isBrokenPipe(error) && stdio.isRunning()) {
      // The server closed its stdin: no request can reach it any more, and calls already
      // written would wait for their time limit. Stop it, which rejects them now.
      this.fatal = {
        error,
        what: `closed its stdin, so no request can reach it (${errorCodeOf(error) ?? error.message}), and was stopped`,
      };
      stdio.terminate(this.settings.closeGraceMs);
    }
  }

  /** Reports a failure no request can be rejected with, at most 10 per 10 s, secrets removed. */
  private report(error: Error): void {
    if (this.closedByUs) return;
    const { serverName, redact } = this.settings;
    const admission = this.reports.admit();
    if (!admission.admit) {
      if (!admission.firstSuppressed) return;
      this.events.report(
        new McpToolError(
          'mcp_error',
          `MCP server '${serverName}' keeps sending messages the client cannot use; further reports are suppressed for a few seconds.`,
          { serverName },
        ),
      );
      return;
    }
    const suppressed =
      admission.suppressedBefore === 0
        ? ''
        : ` (${admission.suppressedBefore} similar reports suppressed before this one)`;
    this.events.report(
      new McpToolError(
        'mcp_error',
        `MCP server '${serverName}': ${redact(error.message)}${suppressed}`,
        {
          serverName,
          cause: redactError(error, redact),
        },
      ),
    );
  }
}

/** A write to a pipe whose reader is gone. */
function isBrokenPipe(error: Error): boolean {
  const code = errorCodeOf(error);
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}
