// The modern engine: a connection on the v2 SDK (`@modelcontextprotocol/client` 2.4.x), which
// speaks 2026-07-28 (and, with `protocol: 'auto'`, falls back to 2025-11-25). This module is
// only ever loaded with `import()` (see `engine-loader.ts`): the v2 SDK is an optional peer.
import { redactError, settleWithin } from '@agcore/tools-core';
import type * as V2Client from '@modelcontextprotocol/client';
import type {
  Client,
  RequestOptions,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type * as V2Stdio from '@modelcontextprotocol/client/stdio';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createAuthFetch } from '../../auth/auth-fetch.js';
import type { RawCallResult } from '../../calls/call-result.js';
import { McpToolError } from '../../mcp-tool-error.js';
import { elicitationCapabilities, toElicitationRequest, toElicitResult } from '../elicitation.js';
import type {
  CallParams,
  ConnectionEvents,
  ConnectionSettings,
  EngineConnection,
  OfferingMethod,
  ProtocolEra,
  ToolsPage,
} from '../engine.js';
import { lossError, mapFailure, type Operation } from '../error-mapping.js';
import { sendOffering, updatedUri } from '../offering-requests.js';
import { deliverProgressBeforeResponses } from '../progress-order.js';
import { StderrBuffer } from '../stderr-buffer.js';
import { ResponseStreams, streamCutResponse } from '../stream-cut.js';
import { listChangesFilter, ResourceListens } from './listens.js';

// The v2 SDK is an optional peer: its specifier is computed so that a bundler of an application
// that does not install it leaves the import alone (the modern engine then loads it from
// node_modules at run time, and a missing SDK fails this module's import, see engine-loader.ts).
const v2Client: string = '@modelcontextprotocol/client';
const v2: typeof V2Client = await import(/* @vite-ignore */ v2Client);
const v2Stdio: typeof V2Stdio = await import(/* @vite-ignore */ `${v2Client}/stdio`);

type ModernTransport = StreamableHTTPClientTransport | StdioClientTransport;
type ToolDefinition = NonNullable<NonNullable<Parameters<Client['callTool']>[1]>['toolDefinition']>;

/**
 * One live connection on the v2 SDK. It owns its opening (the era negotiation within
 * `connectTimeoutMs`), notices its loss, and shuts down; on a modern connection it never pings.
 */
export class ModernConnection implements EngineConnection {
  readonly sdk: Client;
  readonly stderr: StderrBuffer;
  progressCalls = 0;
  toolsTtlMs: number | undefined;
  closedByUs = false;
  timedOut = false;
  lost: McpToolError | undefined;
  private readonly stdio: StdioClientTransport | undefined;
  private readonly definitions = new Map<string, ToolDefinition>();
  private readonly resourceListens: ResourceListens;

  private constructor(
    private readonly settings: ConnectionSettings,
    readonly transport: ModernTransport,
    private readonly events: ConnectionEvents,
  ) {
    this.stdio = transport instanceof v2Stdio.StdioClientTransport ? transport : undefined;
    this.stderr = new StderrBuffer(settings.stderrLimitBytes);
    this.stdio?.stderr?.on('data', (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      this.stderr.append(text);
      settings.onStderr?.(text);
    });
    const handler = settings.onElicitation;
    this.sdk = new v2.Client(settings.clientInfo, {
      capabilities: elicitationCapabilities(handler),
      versionNegotiation: {
        mode: settings.protocol === 'auto' ? 'auto' : { pin: '2026-07-28' },
      },
    });
    this.resourceListens = new ResourceListens(this.sdk);
    this.sdk.onclose = () => this.handleClose();
    this.sdk.onerror = (error) => this.report(error);
    this.sdk.setNotificationHandler('notifications/tools/list_changed', () => {
      if (!this.closedByUs && this.lost === undefined) events.toolsChanged(this);
    });
    this.watchOfferings(events);
    if (handler !== undefined) {
      // Answers `elicitation/create` on a 2025 connection and, through the SDK's MRTR driver,
      // the `input_required` rounds of a 2026-07-28 one.
      this.sdk.setRequestHandler('elicitation/create', async (request, context) =>
        toElicitResult(
          await handler(toElicitationRequest(request.params), {
            serverName: settings.serverName,
            signal: signalOf(context),
          }),
        ),
      );
    }
  }

  /**
   * Negotiates the era and connects within `connectTimeoutMs`; on a modern connection, opens
   * the `subscriptions/listen` stream for list changes (tools, resources, prompts).
   *
   * @throws {McpToolError} `mcp_error` or `mcp_timeout`; the connection is shut down then.
   */
  static async open(
    settings: ConnectionSettings,
    events: ConnectionEvents,
  ): Promise<ModernConnection> {
    const streams = new ResponseStreams(settings.fetch);
    const connection = new ModernConnection(
      settings,
      createModernTransport(settings, streams.fetch),
      events,
    );
    streams.onCut = (id) => {
      if (!connection.closedByUs) connection.transport.onmessage?.(streamCutResponse(id));
    };
    const timeoutMs = settings.connectTimeoutMs;
    const timer = setTimeout(() => {
      connection.timedOut = true;
      void connection.shutdown();
    }, timeoutMs);
    const remembered = settings.eraMemory?.recall();
    // A pinned client never takes a remembered legacy verdict for an answer.
    const prior =
      settings.protocol === '2026-07-28' && remembered?.era === 'legacy' ? undefined : remembered;
    try {
      await connection.sdk.connect(connection.transport, {
        timeout: timeoutMs,
        ...(prior === undefined
          ? {}
          : {
              prior:
                prior.era === 'legacy'
                  ? { kind: 'legacy' }
                  : { kind: 'modern', discover: prior.discover as never },
            }),
      });
      if (connection.protocolEra === 'modern') await connection.listenForChanges(timeoutMs);
    } catch (error) {
      if (prior !== undefined) settings.eraMemory?.forget();
      const mapped = connection.failure(error, { kind: 'connect', timeoutMs });
      await connection.shutdown();
      throw mapped;
    } finally {
      clearTimeout(timer);
    }
    deliverProgressBeforeResponses(connection);
    settings.eraMemory?.remember(
      connection.protocolEra === 'legacy'
        ? { era: 'legacy' }
        : { era: 'modern', discover: connection.sdk.getDiscoverResult() },
    );
    return connection;
  }

  /**
   * Opens `subscriptions/listen` for the list changes the server says can happen (its tools',
   * resources', prompts' `listChanged`); a server that turns the method down (-32601) just
   * sends no change notices.
   */
  private async listenForChanges(timeoutMs: number): Promise<void> {
    const filter = listChangesFilter(this.sdk.getServerCapabilities());
    if (filter === undefined) return;
    try {
      await this.sdk.listen(filter, { timeout: timeoutMs });
    } catch (error) {
      if (
        asLegacyError(error) instanceof McpError &&
        (asLegacyError(error) as McpError).code === ErrorCode.MethodNotFound
      )
        return;
      throw error;
    }
  }

  get protocolEra(): ProtocolEra {
    return this.sdk.getProtocolEra() === 'legacy' ? 'legacy' : 'modern';
  }

  get protocolVersion(): string | undefined {
    return this.sdk.getNegotiatedProtocolVersion();
  }

  get serverVersion(): { readonly name: string; readonly version: string } | undefined {
    const version = this.sdk.getServerVersion();
    return version === undefined ? undefined : { name: version.name, version: version.version };
  }

  get pid(): number | undefined {
    return this.stdio?.pid ?? undefined;
  }

  get isStdio(): boolean {
    return this.stdio !== undefined;
  }

  stderrTail(): string {
    return this.stderr.tail();
  }

  describeLoss(): McpToolError {
    return lossError(this.settings, {
      exit: undefined,
      fatal: undefined,
      unreachable: undefined,
      stderr: this.stderr.tail(),
    });
  }

  async listPage(cursor: string | undefined, timeoutMs: number): Promise<ToolsPage> {
    const page = await this.sdk.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout: timeoutMs,
      cacheMode: 'bypass',
    });
    // 2026-07-28 lists carry `ttlMs`; 0 (the SDK's default) means no promise at all, and the
    // list then stays cached until `subscriptions/listen` says it changed, as on 2025-11-25.
    const ttlMs = (page as { ttlMs?: unknown }).ttlMs;
    if (cursor === undefined) this.toolsTtlMs = undefined;
    if (typeof ttlMs === 'number' && ttlMs > 0) {
      this.toolsTtlMs = this.toolsTtlMs === undefined ? ttlMs : Math.min(this.toolsTtlMs, ttlMs);
    }
    return { tools: page.tools, nextCursor: page.nextCursor };
  }

  useTools(tools: readonly unknown[]): void {
    // The listing bypasses the SDK's cache (one bad tool would fail its listTools()), so each
    // call hands the SDK its tool's definition: for the outputSchema check and for the
    // Mcp-Param-* headers of 2026-07-28 (SEP-2243).
    this.definitions.clear();
    for (const tool of tools) {
      const name = (tool as { name?: unknown }).name;
      if (typeof name === 'string') this.definitions.set(name, tool as ToolDefinition);
    }
  }

  callTool(params: CallParams, options: RequestOptions): Promise<RawCallResult> {
    const definition = this.definitions.get(params.name);
    return this.sdk.callTool(
      params as Parameters<Client['callTool']>[0],
      definition === undefined ? options : { ...options, toolDefinition: definition },
    ) as Promise<RawCallResult>;
  }

  offering(method: OfferingMethod, params: Record<string, unknown>, timeoutMs: number) {
    // 2026-07-28 has no resources/subscribe: a subscription is a subscriptions/listen stream.
    if (this.protocolEra === 'modern' && method === 'resources/subscribe')
      return this.resourceListens.subscribe(String(params.uri), timeoutMs);
    if (this.protocolEra === 'modern' && method === 'resources/unsubscribe')
      return this.resourceListens.unsubscribe(String(params.uri));
    return sendOffering(this.sdk, method, params, timeoutMs);
  }

  /** Hands the server's resource and prompt notifications to `events`. Never throws. */
  private watchOfferings(events: ConnectionEvents): void {
    const live = () => !this.closedByUs && this.lost === undefined;
    this.sdk.setNotificationHandler('notifications/resources/list_changed', () => {
      if (live()) events.offeringChanged(this, { kind: 'resources' });
    });
    this.sdk.setNotificationHandler('notifications/prompts/list_changed', () => {
      if (live()) events.offeringChanged(this, { kind: 'prompts' });
    });
    this.sdk.setNotificationHandler('notifications/resources/updated', (notification) => {
      const uri = updatedUri(notification);
      if (uri !== undefined && live()) events.offeringChanged(this, { kind: 'resource', uri });
    });
  }

  failure(error: unknown, operation: Operation): McpToolError {
    return mapFailure(asLegacyError(error), operation, this.settings, this);
  }

  async shutdown(): Promise<void> {
    if (this.closedByUs) return;
    this.closedByUs = true;
    const grace = this.settings.closeGraceMs;
    // A 2025-11-25 session over HTTP ends with DELETE, as on the legacy engine.
    const http =
      this.transport instanceof v2.StreamableHTTPClientTransport ? this.transport : undefined;
    if (http?.sessionId !== undefined) await settleWithin(http.terminateSession(), grace);
    await settleWithin(this.sdk.close(), grace * 3);
  }

  private handleClose(): void {
    if (this.closedByUs || this.lost !== undefined) return;
    this.lost = this.describeLoss();
    this.events.lost(this, this.lost);
  }

  private report(error: Error): void {
    if (this.closedByUs) return;
    const { serverName, redact } = this.settings;
    this.events.report(
      new McpToolError('mcp_error', `MCP server '${serverName}': ${redact(error.message)}`, {
        serverName,
        cause: redactError(error, redact),
      }),
    );
  }
}

/** The v2 SDK's transport for the configured server; nothing is started. */
function createModernTransport(
  settings: ConnectionSettings,
  fetch: typeof globalThis.fetch,
): ModernTransport {
  const config = settings.transport;
  if (config.type === 'stdio') {
    return new v2Stdio.StdioClientTransport({
      command: config.command,
      args: [...(config.args ?? [])],
      ...(config.env === undefined ? {} : { env: { ...config.env } }),
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
    });
  }
  if (config.type === 'sse') {
    throw new McpToolError(
      'mcp_error',
      `MCP server '${settings.serverName}': the deprecated HTTP+SSE transport is legacy only; use protocol: 'legacy' for it.`,
      { serverName: settings.serverName },
    );
  }
  const url = new URL(String(config.url));
  return new v2.StreamableHTTPClientTransport(url, {
    ...(config.headers === undefined ? {} : { requestInit: { headers: { ...config.headers } } }),
    // The same OAuth fetch as the legacy engine's, over the stream-cut watcher.
    fetch: createAuthFetch(config.auth, { serverName: settings.serverName, serverUrl: url, fetch }),
  });
}

/**
 * The v2 SDK's errors in the v1 SDK's terms, which the error mapping reads: a time limit, a
 * closed connection, a JSON-RPC error. Anything else goes through as it is.
 */
function asLegacyError(error: unknown): unknown {
  if (error instanceof v2.SdkError) {
    if (error.code === v2.SdkErrorCode.RequestTimeout) {
      return new McpError(ErrorCode.RequestTimeout, error.message, error.data);
    }
    if (error.code === v2.SdkErrorCode.ConnectionClosed) {
      return new McpError(ErrorCode.ConnectionClosed, error.message, error.data);
    }
    return error;
  }
  if (error instanceof v2.ProtocolError) return new McpError(error.code, error.message, error.data);
  return error;
}

function signalOf(context: unknown): AbortSignal {
  const signal = (context as { mcpReq?: { signal?: unknown } } | undefined)?.mcpReq?.signal;
  return signal instanceof AbortSignal ? signal : new AbortController().signal;
}
