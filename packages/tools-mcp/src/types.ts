import type { JsonObject, JsonSchema, ToolProgress } from '@agcore/tools-core';
import type { McpToolAnnotations } from './tool-permissions.js';

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
  /** The server's behaviour hints (untrusted: see `trustAnnotations`). */
  readonly annotations?: McpToolAnnotations;
}

/** Options of one `callTool`. */
export interface McpCallOptions {
  /** Aborting it sends `notifications/cancelled` and rejects with `cancelled`. */
  readonly signal?: AbortSignal;
  /** Time limit of this call (default: the client's `timeoutMs`). */
  readonly timeoutMs?: number;
  /** Receives the server's progress notifications. */
  readonly onProgress?: (update: ToolProgress) => void;
  /**
   * With `onProgress`: each progress notification restarts the time limit, up to
   * `maxTotalTimeoutMs` in all (default: the client's `resetTimeoutOnProgress`, off).
   */
  readonly resetTimeoutOnProgress?: boolean;
  /** The longest a call whose limit progress restarts may take (default: the client's). */
  readonly maxTotalTimeoutMs?: number;
  /**
   * Sent in `_meta` as `dev.agcore/idempotencyKey` (what `@agcore/tools-mcp-server` hands the
   * tool as `context.idempotencyKey`); a call that carries one is safe to `retry`.
   */
  readonly idempotencyKey?: string;
  /** Retries of this call (default: the client's `retry`); see `McpRetryOptions`. */
  readonly retry?: McpRetryOptions;
}

/**
 * Retrying calls that are safe to repeat — read-only by the server's annotation
 * (`readOnlyHint`), or carrying an idempotency key — after a failure that left their outcome
 * unknown (a cut response stream, a lost or unreachable server: `mcp_error`). A call that is
 * not safe to repeat fails at once; a server's answer, a time limit or an abort is never
 * retried. The call's signal and time limit span every attempt.
 */
export interface McpRetryOptions {
  /** Attempts in all, the first included (`1`: no retry). A positive integer. */
  readonly attempts: number;
  /** The wait before the first retry, doubled after each (tools-core's backoff); default 200. */
  readonly backoffMs?: number;
}

/**
 * When an HTTP server counts as unreachable (the default engine, `protocol: 'legacy'`; the v2
 * SDK's engine never marks an HTTP server lost for a failed request): after `failures` consecutive requests
 * or reachability pings that got no answer (refused, reset), the first and the last at least
 * `windowMs` apart, with no answered request between. Until then a failed request fails only
 * its call (a retryable `mcp_error`) and the client stays connected; any answer starts the
 * count over. Once unreachable the connection is lost (`autoReconnect` applies).
 */
export interface McpUnreachableOptions {
  /** Consecutive failures needed (default 5). A positive integer. */
  readonly failures?: number;
  /** The least time from the first of them to the last, in ms (default 10 000). */
  readonly windowMs?: number;
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
  /** The longest wait between two attempts (default 30 000 ms). */
  readonly maxDelayMs?: number;
}

/** A tool of a listing that the client leaves out (reported once per client). */
export interface McpInvalidToolWarning {
  readonly kind: 'invalid_tool';
  /** The server that listed it. */
  readonly serverName: string;
  /** Its name, or `#n` (its position in the listing) when it has no usable name. */
  readonly toolName: string;
  /** What is wrong, in one sentence naming the server and the tool. */
  readonly message: string;
}

/**
 * A tool whose definition (title, description, schemas or annotations) differs from the one
 * this client saw first under its exposed name (the sanitised name the model sees): a server
 * may change a tool after it was approved (a "rug pull"), or list another MCP name that
 * becomes the same exposed name (`rm.rf` in the place of `rm_rf`). Reported once per new
 * definition.
 */
export interface McpToolChangedWarning {
  readonly kind: 'tool_changed';
  /** The server that lists it. */
  readonly serverName: string;
  /** The tool's MCP name, as listed now. */
  readonly toolName: string;
  /**
   * The MCP name of the pinned definition: `toolName` itself, or the MCP name whose exposed
   * name this tool took (a rename, or two MCP names for one exposed name in one listing).
   */
  readonly previousToolName: string;
  /** SHA-256 (hex) of the definition this client saw first (or accepted last). */
  readonly previousFingerprint: string;
  /** SHA-256 (hex) of the definition now listed. */
  readonly fingerprint: string;
  /**
   * For `toolName: 'list_resources'` (the resource tools' view, see `resourceTools()`): the
   * `uri` of the resource, or the `uriTemplate` of the template, whose entry changed.
   */
  readonly uri?: string;
  /** With `onToolChange: 'block'`: the tool is kept out of `tools()` until accepted. */
  readonly blocked: boolean;
  /** What happened and what to do, in one sentence naming the server and the tool. */
  readonly message: string;
}

/**
 * A pattern in a tool's schema that the client cannot check in linear time (lookaround,
 * backreferences). A server's schema is untrusted, so the tool is kept and values are not
 * checked against that pattern; the schema's other keywords still are. Reported once per
 * pattern per client.
 */
export interface McpUncheckedPatternWarning {
  readonly kind: 'unchecked_pattern';
  /** The server that lists the tool. */
  readonly serverName: string;
  /** The tool's MCP name. */
  readonly toolName: string;
  /** Which pattern and why, in one sentence naming the server and the tool. */
  readonly message: string;
}

/** Something about a server's tools the application should know, which fails no request. */
export type McpWarning = McpInvalidToolWarning | McpToolChangedWarning | McpUncheckedPatternWarning;

/**
 * Which protocol a client speaks: `'legacy'` (today's engine on the v1 SDK, 2025-11-25),
 * `'auto'` (probe `server/discover`, fall back to 2025-11-25) or `'2026-07-28'` (modern or a
 * typed error); the last two run on the v2 SDK, `@modelcontextprotocol/client`.
 */
export type McpProtocol = 'legacy' | 'auto' | '2026-07-28';

/** Options of `McpClient`. */
export interface McpClientOptions {
  /**
   * Time limit of each request of the protocol link, in ms (default 30 000): a listing page,
   * a ping, and `callTool` without a time limit of its own. The `BaseTool`s of `tools()` run on
   * their caller's clock instead (`ToolContext.deadline` and `signal`).
   */
  readonly timeoutMs?: number;
  /** Time limit of `connect()` (start-up and initialize), in ms (default: `timeoutMs`). */
  readonly connectTimeoutMs?: number;
  /** `callTool` with `onProgress`: each progress notification restarts its limit (default off). */
  readonly resetTimeoutOnProgress?: boolean;
  /** The longest a call whose limit progress restarts may take (default: 10 × its limit). */
  readonly maxTotalTimeoutMs?: number;
  /**
   * Whether the tools' annotations (`readOnlyHint`, `destructiveHint`, `openWorldHint`) decide
   * their permissions. The MCP specification calls annotations untrusted. Default: `true` for
   * a stdio server (a program the application chose to start), `false` for an HTTP or SSE
   * server (a remote service): its tools then require `write`, `delete` and `network` whatever
   * they claim, unless the application overrides their permissions.
   */
  readonly trustAnnotations?: boolean;
  /**
   * What a listing does with a tool whose definition (or MCP name, under one exposed name)
   * changed since this client first saw it: `'report'` (default) warns through `onWarning` and
   * uses the new definition; `'block'` warns and keeps the tool out of `tools()` (and makes its
   * `BaseTool`s refuse to run, with the recoverable `denied`) until `acceptToolChange(name)`.
   */
  readonly onToolChange?: 'report' | 'block';
  /** Age after which the cached tool list is fetched again (default: kept until list_changed). */
  readonly toolsTtlMs?: number;
  /**
   * Reconnect by itself when the server dies or closes the connection (default off). Calls
   * in flight when it died are rejected, never replayed; calls made while reconnecting wait.
   */
  readonly autoReconnect?: boolean | McpAutoReconnectOptions;
  /** Retries of calls that are safe to repeat (default: none); see `McpRetryOptions`. */
  readonly retry?: McpRetryOptions;
  /** HTTP: when the server counts as unreachable (default: 5 failures over 10 s); see `McpUnreachableOptions`. */
  readonly unreachableAfter?: McpUnreachableOptions;
  /** Stdio: how long `close()` waits at each step (stdin closed, SIGTERM, SIGKILL); default 1000 ms. */
  readonly closeGraceMs?: number;
  /** Stdio: how much of the server's stderr is kept for error reports (default 64 KiB). */
  readonly stderrLimitBytes?: number;
  /** Stdio: the longest message line accepted from the server (default 10 MiB, the SDK's). */
  readonly maxMessageBytes?: number;
  /**
   * The largest resource `readResource()` (and the `read_resource` tool) accepts, in decoded
   * bytes (UTF-8 of text, bytes of base64), default 4 MiB; over it, `McpResourceTooLargeError`.
   */
  readonly maxResourceBytes?: number;
  /** Answers the server's elicitation requests. Without it the client declares no elicitation. */
  readonly onElicitation?: McpElicitationHandler;
  /**
   * Called with the new list once a listing finds the tools changed: a list different from the
   * last one this client saw, or, before any, the list that follows the server's
   * `notifications/tools/list_changed`. Once per settled listing, however many notices came.
   */
  readonly onToolsChanged?: (tools: readonly McpToolInfo[]) => void;
  /** Stdio: receives the server's stderr as it comes (it is captured either way). */
  readonly onStderr?: (text: string) => void;
  /**
   * Receives what the client found wrong with the server's tools, each once: an invalid tool
   * (left out of `listTools()` and `tools()`), a tool whose definition changed.
   */
  readonly onWarning?: (warning: McpWarning) => void;
  /** Receives failures that no call could be rejected with: bad lines, failed background refreshes. */
  readonly onError?: (error: Error) => void;
  /**
   * Which protocol to speak (default `'legacy'`): `'legacy'` is the v1 SDK engine and
   * 2025-11-25; `'auto'` probes `server/discover` and falls back to 2025-11-25; `'2026-07-28'`
   * connects modern or fails with `mcp_error`. `'auto'` and `'2026-07-28'` load the optional
   * peer `@modelcontextprotocol/client` (2.4.x) on first connect. The era found is remembered
   * for the process, so a reconnect skips the probe.
   */
  readonly protocol?: McpProtocol;
  /** How this client introduces itself (default `{ name: 'agcore', version: '0.1.0' }`). */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}
