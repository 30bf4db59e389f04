import type { JsonObject } from '@agcore/tools-core';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { RawCallResult } from '../calls/call-result.js';
import type { McpToolError } from '../mcp-tool-error.js';
import type { ToolSchemas } from '../schemas/tool-schemas.js';
import type { McpElicitationHandler, McpProtocol } from '../types.js';
import type { ErrorScope, LinkState, Operation } from './error-mapping.js';
import type { UnreachablePolicy } from './reachability.js';

/** Which era of the protocol a connection speaks. */
export type ProtocolEra = 'legacy' | 'modern';

/** What a connection found out about the server's era, for the next one. */
export type RememberedEra =
  | { readonly era: 'legacy' }
  | { readonly era: 'modern'; readonly discover: unknown };

/** Where the era of a server is kept between connections (for the process). */
export interface EraMemory {
  recall(): RememberedEra | undefined;
  remember(era: RememberedEra): void;
  /** A connection that relied on the remembered era failed: probe again next time. */
  forget(): void;
}

/** How a connection is made and run. */
export interface ConnectionSettings extends ErrorScope {
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly onElicitation: McpElicitationHandler | undefined;
  readonly connectTimeoutMs: number;
  /** The time limit of a ping (HTTP reachability check). */
  readonly pingTimeoutMs: () => number;
  /** HTTP: when the server counts as unreachable (see `ReachabilityWindow`). */
  readonly unreachableAfter: UnreachablePolicy;
  readonly closeGraceMs: number;
  readonly stderrLimitBytes: number;
  readonly maxMessageBytes: number;
  readonly onStderr: ((text: string) => void) | undefined;
  /** Checks structuredContent against the tools' output schemas, for the SDK. */
  readonly schemas: ToolSchemas;
  /** Which engine, and which era (default `'legacy'`: the v1 SDK, 2025-11-25). */
  readonly protocol: McpProtocol;
  /** The era a previous connection to this server found (`McpServers`): no probe then. */
  readonly eraMemory: EraMemory | undefined;
  /** HTTP: the fetch both engines' transports send with (an authenticating one, say). */
  readonly fetch: typeof fetch | undefined;
}

/** What a connection tells its client. */
export interface ConnectionEvents {
  /** The server died, closed the connection or became unreachable (never after `shutdown()`). */
  lost(connection: EngineConnection, error: McpToolError): void;
  /** The server said its tools changed (a notification, or a `subscriptions/listen` event). */
  toolsChanged(connection: EngineConnection): void;
  /** A failure no request can be rejected with (a bad line, say), secrets removed. */
  report(error: Error): void;
  /** The server said its resources or prompts changed, or that one resource was updated. */
  offeringChanged(connection: EngineConnection, change: OfferingChange): void;
}

/** A change of what the server offers besides tools. */
export type OfferingChange =
  | { readonly kind: 'resources' }
  | { readonly kind: 'prompts' }
  | { readonly kind: 'resource'; readonly uri: string };

/** The requests of the resources and prompts families. */
export type OfferingMethod =
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'resources/subscribe'
  | 'resources/unsubscribe'
  | 'prompts/list'
  | 'prompts/get';

/** The params of one `tools/call`. */
export interface CallParams {
  readonly name: string;
  readonly arguments: JsonObject;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One page of `tools/list`, as the server sent it (checked by the listing). */
export interface ToolsPage {
  readonly tools: readonly unknown[];
  readonly nextCursor?: string | undefined;
}

/**
 * The engine seam: one live connection to a server, whatever SDK and protocol era carry it.
 * The legacy engine (`legacy/connection.ts`, the v1 SDK) and the modern one (`modern/connection.ts`,
 * the v2 SDK) implement it; the client, the listing and the call path see only this.
 */
export interface EngineConnection extends LinkState {
  /** The era this connection speaks. */
  readonly protocolEra: ProtocolEra;
  /** The protocol revision negotiated, once connected. */
  readonly protocolVersion: string | undefined;
  /** The server's name and version from the handshake or discovery. */
  readonly serverVersion: { readonly name: string; readonly version: string } | undefined;
  /** Stdio: the child's process id while it runs. */
  readonly pid: number | undefined;
  /** Calls in flight that listen to progress. */
  progressCalls: number;
  /** 2026-07-28: how long the server said its last tool list stays fresh (`ttlMs` > 0). */
  readonly toolsTtlMs: number | undefined;
  /** Lists one page of tools. @throws what the SDK throws (map it with `failure`). */
  listPage(cursor: string | undefined, timeoutMs: number): Promise<ToolsPage>;
  /** Hands the accepted tools to the SDK, which checks structuredContent against them. */
  useTools(tools: readonly unknown[]): void;
  /** Sends one `tools/call`. @throws what the SDK throws (map it with `failure`). */
  callTool(params: CallParams, options: RequestOptions): Promise<RawCallResult>;
  /** Sends one resources or prompts request; the answer is checked by the caller. @throws what the SDK throws. */
  offering(
    method: OfferingMethod,
    params: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<unknown>;
  /** Maps a failed request of this connection to an `McpToolError`. Never throws. */
  failure(error: unknown, operation: Operation): McpToolError;
  /** Ends the connection; pending requests reject. Safe twice. Never throws. */
  shutdown(): Promise<void>;
}
