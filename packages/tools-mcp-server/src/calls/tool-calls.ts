import {
  activeOtelContext,
  createRedactor,
  createToolContext,
  describeThrown,
  getOtelTracer,
  type IdempotencyStore,
  type JsonValue,
  OtelSpanKind,
  OtelSpanStatusCode,
  type Permission,
  type Redactor,
  type ToolContext,
  type ToolErrorCode,
  type ToolInputAnswer,
  type ToolLogLevel,
  type ToolProgress,
  truncateUtf8,
} from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type {
  ApprovalPolicy,
  McpCaller,
  McpClientCapability,
  ServeToolsOptions,
} from '../types.js';
import { withCallerTrace } from './caller-trace.js';
import { type HeldRun, type KeyedCallLimits, keyedCallLimits, runKeyed } from './keyed-call.js';

/** The result `_meta` key carrying a failed call's `ToolError` code (see README). */
export const errorCodeMetaKey = 'dev.agcore/errorCode';
/** The request `_meta` key a client puts `context.idempotencyKey` in (see README). */
export const idempotencyKeyMetaKey = 'dev.agcore/idempotencyKey';

const maxMessageBytes = 8192;
const maxIdempotencyKeyLength = 512;

/** A `tools/call` result as both SDK eras take it. */
export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** One call as an era's handler read it off the wire. */
export interface CallRequest {
  readonly name: string;
  readonly args: unknown;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly signal: AbortSignal;
  readonly caller: McpCaller | undefined;
  readonly progress: ((update: ToolProgress) => void) | undefined;
  readonly input?: ToolInputAnswer;
  /** The tool's `context.log`, when the era sends log messages. */
  readonly log?: (level: ToolLogLevel, data: JsonValue) => void;
}

/** What a call came to: a result for the wire, or a tool that asks a person. */
export type CallOutcome =
  | { readonly kind: 'result'; readonly result: ToolCallResult }
  | { readonly kind: 'awaiting_input'; readonly prompt: string; readonly data?: JsonValue };

/** The context `serveTools` hands the registry: `ToolContext` plus the caller. */
type ServedContext = Partial<ToolContext> & { caller?: McpCaller };

/**
 * Runs `tools/call` for both eras: approval, idempotency (a keyed call runs under a lease on its
 * key, see `runKeyed`), `registry.invoke`, error mapping.
 * @throws {TypeError} (constructor) for an `idempotencyStore` on a registry without a time limit
 */
export class ToolCalls {
  readonly #registry: ToolRegistry;
  readonly #options: ServeToolsOptions;
  readonly #redact: Redactor | undefined;
  readonly #limits: KeyedCallLimits | undefined;

  constructor(registry: ToolRegistry, options: ServeToolsOptions) {
    this.#registry = registry;
    this.#options = options;
    this.#redact = options.secrets === undefined ? undefined : createRedactor(options.secrets);
    this.#limits =
      options.idempotencyStore === undefined
        ? undefined
        : keyedCallLimits(registry.callTimeLimitMs);
  }

  /**
   * Every registered tool, as `tools/list` lists it, with annotations that say what its
   * `requiredPermissions` say (so a client that maps annotations to permissions, as `McpClient`
   * does for a trusted server, asks its policy about the same permissions).
   */
  list(): {
    name: string;
    description: string;
    inputSchema: { type: 'object'; [key: string]: unknown };
    annotations?: ToolAnnotations;
  }[] {
    return this.#registry.definitions().map(({ function: tool }) => {
      const annotations = annotationsOf(this.#registry.get(tool.name)?.requiredPermissions);
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: { ...(tool.parameters as Record<string, unknown>), type: 'object' as const },
        ...(annotations === undefined ? {} : { annotations }),
      };
    });
  }

  /** The client capabilities `name` needs (`requiredClientCapabilities`); usually none. */
  requiredCapabilities(name: string): readonly McpClientCapability[] | undefined {
    const required = this.#options.requiredClientCapabilities;
    return required !== undefined && Object.hasOwn(required, name) ? required[name] : undefined;
  }

  /** Runs one call; never rejects. */
  async call(request: CallRequest): Promise<CallOutcome> {
    try {
      return await this.#call(request);
    } catch (error) {
      if (!(error instanceof StoreFailure))
        return this.#failure('other', `Serving ${request.name} failed: ${describeThrown(error)}`);
      // The store's error may name its host, port and database: the server's trace gets it.
      await withCallerTrace(request.meta, async () =>
        traceStoreFailure(request.name, error.cause, this.#redact),
      );
      return this.#failure(
        'other',
        `Serving ${request.name} failed: the idempotency store is unavailable (the server's trace has the cause); retry later with the same key.`,
      );
    }
  }

  async #call(request: CallRequest): Promise<CallOutcome> {
    const refusal = await this.#approvalRefusal(request);
    if (refusal !== undefined) return this.#failure('denied', refusal);
    const key = readIdempotencyKey(request.meta);
    const store = this.#options.idempotencyStore;
    if (store === undefined || key === undefined || this.#limits === undefined)
      return (await this.#invoke(request, key)).outcome;
    const keyed = await runKeyed(
      guarded(store),
      scopedKey(request, key),
      this.#limits,
      request.signal,
      () => this.#invoke(request, key),
    );
    switch (keyed.kind) {
      case 'stored':
        return { kind: 'result', result: success(keyed.value) };
      case 'ran':
        return keyed.outcome;
      case 'timeout':
        return this.#failure(
          'timeout',
          `Another call of ${request.name} with this idempotency key is still running (on this server or another of its fleet) after ${this.#limits.leaseMs} ms (this call's time limit and lease margin); retry with the same key for its result.`,
        );
      case 'cancelled':
        return this.#failure(
          'cancelled',
          `The call of ${request.name} was cancelled while it waited for another call with its idempotency key.`,
        );
    }
  }

  /** Runs the call through `registry.invoke`: its answer, and the value to commit on success. */
  async #invoke(request: CallRequest, key: string | undefined): Promise<HeldRun<CallOutcome>> {
    const context: ServedContext = {
      ...(key === undefined ? {} : { idempotencyKey: key }),
      ...(request.caller === undefined ? {} : { caller: request.caller }),
      ...(request.progress === undefined ? {} : { progress: request.progress }),
      ...(request.input === undefined ? {} : { input: request.input }),
      ...(request.log === undefined ? {} : { log: request.log }),
      ...traceIdOf(request.meta),
    };
    const { output } = await withCallerTrace(request.meta, () =>
      this.#registry.invoke(request.name, request.args, { signal: request.signal, context }),
    );
    if (output.ok)
      return { outcome: { kind: 'result', result: success(output.value) }, commit: output.value };
    if (output.awaitingInput !== undefined) {
      const { prompt, data } = output.awaitingInput;
      return {
        outcome: { kind: 'awaiting_input', prompt, ...(data === undefined ? {} : { data }) },
      };
    }
    return { outcome: this.#failure(output.error.code, output.error.message) };
  }

  /** Why a `needsApproval` call may not run, or `undefined` when it may. */
  async #approvalRefusal(request: CallRequest): Promise<string | undefined> {
    const tool = this.#registry.get(request.name);
    if (tool === undefined || tool.needsApproval === undefined || tool.needsApproval === false)
      return undefined;
    // An invalid call is refused by `invoke` with its own code, and needsApproval reads valid args.
    if (this.#registry.checkCall(request.name, request.args) !== undefined) return undefined;
    const approval: ApprovalPolicy | undefined = this.#options.approval;
    try {
      if (typeof tool.needsApproval === 'function') {
        const needed = await tool.needsApproval(request.args as never, contextForApproval(request));
        if (needed !== true) return undefined;
      }
      if (approval === undefined) {
        return `${request.name} needs approval, and this server has no approval policy: pass serveTools(registry, { approval }) to decide such calls on the server.`;
      }
      const approved = await approval({
        toolName: request.name,
        args: request.args as JsonValue,
        ...(request.caller === undefined ? {} : { caller: request.caller }),
      });
      return approved === true
        ? undefined
        : `The server's approval policy refused this call of ${request.name}.`;
    } catch (error) {
      return `The approval of ${request.name} failed, so the call was refused: ${describeThrown(error)}`;
    }
  }

  /** An error result: the code in `_meta`, the message scrubbed and bounded. */
  #failure(code: ToolErrorCode, message: string): CallOutcome {
    return { kind: 'result', result: this.errorResult(code, message) };
  }

  /** An error result for `code`, with a scrubbed message. */
  errorResult(code: ToolErrorCode, message: string): ToolCallResult {
    const redacted = this.#redact === undefined ? message : this.#redact(message);
    return {
      content: [{ type: 'text', text: truncateUtf8(redacted, maxMessageBytes).text }],
      isError: true,
      _meta: { [errorCodeMetaKey]: code },
    };
  }
}

/** The MCP behaviour hints `tools/list` gives a tool. */
interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
}

/**
 * MCP annotations from declared permissions, the inverse of `McpClient`'s mapping: read-only
 * when it needs nothing beyond `read` and `network`; destructive unless it needs only `read`,
 * `write` and `network`; open-world when it needs `network`. A tool that declares nothing gets
 * none: its author said nothing about its effects (it may well write), and a client must not
 * take it for read-only (and retry it, say).
 */
function annotationsOf(
  permissions: readonly Permission[] | undefined,
): ToolAnnotations | undefined {
  if (permissions === undefined) return undefined;
  const within = (allowed: readonly string[]) => permissions.every((p) => allowed.includes(p));
  return {
    readOnlyHint: within(['read', 'network']),
    destructiveHint: !within(['read', 'write', 'network']),
    openWorldHint: permissions.includes('network'),
  };
}

function success(value: JsonValue): ToolCallResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const structured =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { structuredContent: value }
      : {};
  return { content: [{ type: 'text', text }], ...structured };
}

function readIdempotencyKey(
  meta: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const key = meta?.[idempotencyKeyMetaKey];
  return typeof key === 'string' && key.length > 0 && key.length <= maxIdempotencyKeyLength
    ? key
    : undefined;
}

/** A key per caller and tool: one caller's key never answers another's call. */
function scopedKey(request: CallRequest, key: string): string {
  return JSON.stringify([request.caller?.id ?? null, request.name, key]);
}

const traceparentPattern = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The caller's trace id from a W3C `traceparent` in `_meta`, as `context.traceId`. */
function traceIdOf(meta: Readonly<Record<string, unknown>> | undefined): { traceId?: string } {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return {};
  const match = traceparentPattern.exec(traceparent);
  return match?.[1] === undefined ? {} : { traceId: match[1] };
}

function contextForApproval(request: CallRequest): ToolContext {
  return createToolContext({ signal: request.signal, ...traceIdOf(request.meta) });
}

/** A failure of the idempotency store (its error is the `cause`), told from the call's own. */
class StoreFailure extends Error {
  constructor(cause: unknown) {
    super('idempotency store unavailable', { cause });
  }
}

/** `store`, whose every failure (a rejection or a throw) is a `StoreFailure`. */
function guarded(store: IdempotencyStore): IdempotencyStore {
  const attempt = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      throw new StoreFailure(error);
    }
  };
  return {
    get: (key) => attempt(() => store.get(key)),
    set: (key, value) => attempt(() => store.set(key, value)),
    reserve: (key, leaseMs) => attempt(() => store.reserve(key, leaseMs)),
    release: (key) => attempt(() => store.release(key)),
  };
}

/**
 * Records a failed store call as an `idempotency_store <tool>` span with status ERROR and the
 * store's error (scrubbed of `secrets`) as its message, when a tracer provider is registered;
 * the client's answer says only that the store is unavailable. Never throws.
 */
function traceStoreFailure(name: string, cause: unknown, redact: Redactor | undefined): void {
  try {
    const tracer = getOtelTracer('@agcore/tools-mcp-server');
    if (tracer === undefined) return;
    const detail = describeThrown(cause);
    const span = tracer.startSpan(
      `idempotency_store ${name}`,
      {
        kind: OtelSpanKind.INTERNAL,
        attributes: { 'gen_ai.tool.name': name, 'error.type': 'idempotency_store' },
      },
      activeOtelContext(),
    );
    span.setStatus({
      code: OtelSpanStatusCode.ERROR,
      message: truncateUtf8(redact === undefined ? detail : redact(detail), maxMessageBytes).text,
    });
    span.end();
  } catch {
    // A tracer that throws must not change the answer.
  }
}
