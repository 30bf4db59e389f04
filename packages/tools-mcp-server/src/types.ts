import type { ChangeFeed, IdempotencyStore, JsonValue } from '@agcore/tools-core';
import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { McpPromptProvider, McpResourceProvider } from './offerings.js';

/** The MCP protocol revisions `serveTools` can answer. */
export type McpProtocolRevision = '2025-11-25' | '2026-07-28';

/**
 * Who made a request, as the `authenticate` hook says: handed to every tool as
 * `context.caller`, to the `approval` policy, and bound into sealed request state.
 */
export interface McpCaller {
  /** A stable id of the caller (a JWT's `sub`, an API key's owner). */
  readonly id: string;
  /** The scopes or roles the caller was granted, when the credential carries any. */
  readonly scopes?: readonly string[];
  /** Further verified facts about the caller (a JWT's claims), as JSON. */
  readonly claims?: Readonly<Record<string, JsonValue>>;
}

/** What the server-side `approval` policy is asked about one call. */
export interface ApprovalRequest {
  /** The tool to run. */
  readonly toolName: string;
  /** The call's arguments, as received. */
  readonly args: JsonValue;
  /** The caller, when `authenticate` named one. */
  readonly caller?: McpCaller;
}

/**
 * A server-side approval policy for `needsApproval` tools: `true` runs the call, `false` refuses it
 * with `denied`. A policy that throws refuses the call too.
 */
export type ApprovalPolicy = (request: ApprovalRequest) => boolean | Promise<boolean>;

/** A client capability a tool can need (2026-07-28 `clientCapabilities`). */
export type McpClientCapability = 'sampling' | 'elicitation' | 'roots';

/** How long clients may cache `tools/list` (2026-07-28 `ttlMs` / `cacheScope`). */
export interface ListCacheHint {
  /** Cache lifetime in milliseconds; default `0` (do not cache). */
  readonly ttlMs?: number;
  /** `private` (default): only the requesting client may cache; `public`: shared caches too. */
  readonly cacheScope?: 'public' | 'private';
}

/** Options of `serveTools`. */
export interface ServeToolsOptions {
  /** The MCP endpoint's path; default `/mcp`. */
  readonly path?: string;
  /** The revisions answered; default `['2025-11-25', '2026-07-28']`. */
  readonly protocols?: readonly McpProtocolRevision[];
  /** The server's name and version in `initialize` / `server/discover`; default `agcore-tools`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Runs `needsApproval` tools when it says yes; without it such tools answer `denied`. */
  readonly approval?: ApprovalPolicy;
  /**
   * Says who sent a request (e.g. `verifyBearerJwt`). Throwing, or returning `undefined`, answers
   * `401` before anything else runs. Absent: every request is anonymous (`context.caller` unset).
   */
  readonly authenticate?: (
    request: Request,
  ) => McpCaller | undefined | Promise<McpCaller | undefined>;
  /**
   * Host names accepted in the `Host` header (DNS-rebinding protection). Default: the loopback
   * names (`localhost`, `127.0.0.1`, `[::1]`) when the server listens on a loopback address,
   * otherwise any host.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origin host names accepted in an `Origin` header (requests without one are not browsers and
   * pass). Default: the loopback names.
   */
  readonly allowedOrigins?: readonly string[];
  /** The largest request body read, in bytes; default 1 MiB. A larger one answers `413`. */
  readonly maxRequestBodyBytes?: number;
  /**
   * Where keyed calls (`_meta["dev.agcore/idempotencyKey"]`) are reserved and their results
   * committed, shared by a fleet: a committed key answers its stored result; a key another call
   * holds is waited for; a lease whose holder died is taken over (see README). Needs a registry
   * with a finite time limit (`TypeError` otherwise): the lease is that limit + max(1 s, 10 %).
   */
  readonly idempotencyStore?: IdempotencyStore;
  /**
   * The HMAC key (at least 32 bytes) that seals `input_required` request state; every instance of
   * a fleet must share it. Without it, a tool that asks back answers an error.
   */
  readonly requestStateKey?: string | Uint8Array;
  /** How long sealed request state stays valid, in milliseconds; default 600 000. */
  readonly requestStateTtlMs?: number;
  /** `tools/list` cache hint on 2026-07-28. */
  readonly listCache?: ListCacheHint;
  /**
   * A change-event bus shared by every instance: with it the server advertises
   * `tools.listChanged`, and 2026-07-28 `subscriptions/listen` streams and 2025 GET streams hear
   * its events; without it (or `changes`) `listChanged` is off (a stateless instance cannot
   * know what another one changed).
   */
  readonly eventBus?: ServerEventBus;
  /**
   * The change feed the instances of a fleet share (`InMemoryChangeFeed` in one process, a
   * shared one across processes): every change published on it, on any instance, is announced to
   * this instance's clients (`notifications/tools/list_changed` on 2025-11-25, also on the GET
   * notification stream; `subscriptions/listen` on 2026-07-28), and `tools.listChanged` is
   * advertised. Publish on it after changing the registry. Not with `eventBus` (`TypeError`).
   */
  readonly changes?: ChangeFeed;
  /** Secrets taken out of every error message before it leaves the server. */
  readonly secrets?: Iterable<string>;
  /**
   * Resources served beside the tools (`resources/list`, `resources/read`,
   * `resources/templates/list`, completions of template variables), on both eras, under the
   * registry's permission policy (`read`); see `staticResources`.
   */
  readonly resources?: McpResourceProvider;
  /**
   * Prompts served beside the tools (`prompts/list`, `prompts/get`, completions of prompt
   * arguments), on both eras, under the registry's permission policy (`read`); see
   * `staticPrompts`.
   */
  readonly prompts?: McpPromptProvider;
  /**
   * The client capabilities a tool needs, by tool name. A 2026-07-28 call of such a tool from a
   * client that did not declare them is answered `-32021` (MissingRequiredClientCapability)
   * and not run; a 2025-11-25 call (a stateless server cannot use them) answers an error result.
   */
  readonly requiredClientCapabilities?: Readonly<Record<string, readonly McpClientCapability[]>>;
}

/** A listening server made by `listen`. */
export interface ListeningServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  readonly url: string;
  /** Stops accepting connections and ends open ones; resolves when closed. */
  close(): Promise<void>;
}

/** Options of `listen`. */
export interface ListenOptions {
  /** The port; `0` picks a free one. */
  readonly port: number;
  /** The address; default `127.0.0.1`. */
  readonly host?: string;
}

/** What `serveTools` returns: the handlers and a ready server. */
export interface ToolServer {
  /** A `node:http` request handler (also Express / Fastify's raw request and response). */
  node(
    request: import('node:http').IncomingMessage,
    response: import('node:http').ServerResponse,
  ): void;
  /** A Web-standard fetch handler (Hono, Bun, Deno, edge runtimes); never rejects. */
  fetch(request: Request): Promise<Response>;
  /** Starts a `node:http` server serving `node`. */
  listen(options: ListenOptions): Promise<ListeningServer>;
  /** Closes every server `listen` started and aborts calls in flight. */
  close(): Promise<void>;
}
