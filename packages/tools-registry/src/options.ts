import type { Permission, ToolContext, ToolProgress } from '@agcore/tools-core';
import type { SchemaCheck } from '@agcore/tools-core/schema';
import type { PermissionChecker } from '@agcore/tools-permission';
import type { ToolEntry, ToolStats } from './tool-entry.js';
import type { ToolInvocation } from './tool-invocation.js';

/** Options of `new ToolRegistry()`. */
export interface ToolRegistryOptions {
  /** Time limit of one invocation in milliseconds; default 60 000. `0` or `Infinity`: none. */
  readonly timeoutMs?: number;
  /**
   * Whether a progress report (`context.progress`) moves the call's deadline to now +
   * `timeoutMs` (capped by `maxTotalTimeoutMs`); default `false`: progress never extends time.
   */
  readonly resetTimeoutOnProgress?: boolean;
  /**
   * The hard maximum of one call from its start, in milliseconds, whatever its progress.
   * Default: none while `resetTimeoutOnProgress` is off; 10 × `timeoutMs` when it is on (it must
   * then be finite).
   */
  readonly maxTotalTimeoutMs?: number;
  /** The permission policy; without one, no permission is checked. */
  readonly permissionChecker?: PermissionChecker;
  /** Validate arguments against each tool's JSON Schema before it runs; default `true`. */
  readonly validateArguments?: boolean;
  /** The session id given to tools when a call's context has none; default a random UUID. */
  readonly sessionId?: string;
  /**
   * The audit hook: called once per settled invocation of `invoke` and `invokeAll` (successful,
   * failed, refused, invalid, not found), synchronously, before the call's promise resolves,
   * with its own deep-frozen copy of the invocation (the JSON view of the arguments and the
   * result: whatever the hook writes, the caller and the model read what the tool gave) and
   * the tool's entry (`undefined` when no tool of that name is registered, or the call could
   * not be read). It never changes the call's outcome: a throw or a rejected promise goes to
   * `onInvocationError`; a returned promise is not awaited. Keep it fast (queue the record,
   * write it elsewhere): the copy costs time in proportion to the arguments and the result.
   */
  readonly onInvocation?: (
    invocation: ToolInvocation,
    entry: ToolEntry | undefined,
  ) => void | PromiseLike<void>;
  /**
   * Receives every failure of `onInvocation` (its exception, or the reason its promise
   * rejected) with the invocation it was called for. Without it, the first failure is
   * reported once per registry with `process.emitWarning` (code `AGCORE_ON_INVOCATION_FAILED`)
   * and later ones are not. A throw from it is ignored.
   */
  readonly onInvocationError?: (error: unknown, invocation: ToolInvocation) => void;
  /**
   * OpenTelemetry spans (`execute_tool {name}`), made when a tracer provider is registered with
   * `@opentelemetry/api`: `false` makes none. `recordContent: true` records the arguments and
   * the result (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`); default off, they
   * may hold personal data. Every string written to a span is cut to `maxAttributeBytes`.
   */
  readonly tracing?: false | ToolTracingOptions;
}

/** Options of the registry's OpenTelemetry spans. */
export interface ToolTracingOptions {
  /** Record the arguments and the result on the span (bounded JSON); default `false`. */
  readonly recordContent?: boolean;
  /**
   * The most UTF-8 bytes of one string the span holds (an attribute, the span's name, its
   * status message), marker included: longer ones are cut by tools-core's `boundAttribute`
   * with the marker of a cut tool result (`…[truncated: N of M bytes cut]`). Default
   * `defaultMaxAttributeBytes` (16 KiB). An integer of at least 128, else the constructor
   * throws a `TypeError`.
   */
  readonly maxAttributeBytes?: number;
}

/** Options of one `invoke`. */
export interface InvokeOptions {
  /** Time limit of this call in milliseconds, overriding the registry's. */
  readonly timeoutMs?: number;
  /** Overrides the registry's `resetTimeoutOnProgress` for this call. */
  readonly resetTimeoutOnProgress?: boolean;
  /** Overrides the registry's `maxTotalTimeoutMs` for this call. */
  readonly maxTotalTimeoutMs?: number;
  /** Aborting it cancels the call: the tool's `context.signal` aborts and the output is `cancelled`. */
  readonly signal?: AbortSignal;
  /** Fields of the `ToolContext` to pass on (session id, trace id, call id, progress, ...). */
  readonly context?: Partial<ToolContext>;
}

/** One call of an `invokeAll` batch. */
export interface ToolCallRequest {
  /** The tool's name. */
  readonly name: string;
  /** Its arguments. */
  readonly args: unknown;
  /** The LLM's call id, passed to the tool as `context.toolCallId` and kept in the invocation. */
  readonly callId?: string;
}

/** Options of `invokeAll`. */
export interface InvokeAllOptions extends InvokeOptions {
  /** At most this many calls run at once; default: all at once. */
  readonly concurrency?: number;
  /** Receives each call's progress reports, with the call they belong to. */
  readonly onProgress?: (update: ToolProgress, call: ToolCallRequest, index: number) => void;
  /** Called as each call settles, before the batch ends. */
  readonly onResult?: (invocation: ToolInvocation, index: number) => void;
}

/** A registered tool as the registry keeps it: frozen permissions, a compiled schema. */
export interface RegisteredTool extends ToolEntry {
  readonly stats: ToolStats;
  readonly permissions: readonly Permission[];
  readonly checkArguments: SchemaCheck;
}

/** How long a call may run: resolved from the registry's options and the call's. */
export interface TimePolicy {
  /** `Infinity`: no limit. */
  readonly timeoutMs: number;
  readonly resetTimeoutOnProgress: boolean;
  /** `Infinity`: no cap. */
  readonly maxTotalTimeoutMs: number;
}

/** What the invocation pipeline reads from its registry. */
export interface RegistryView {
  readonly entries: ReadonlyMap<string, RegisteredTool>;
  readonly checker: PermissionChecker | undefined;
  readonly validateArguments: boolean;
  readonly sessionId: string;
  readonly options: ToolRegistryOptions;
  readonly time: TimePolicy;
  /** The span options; `undefined` when `tracing: false`. */
  readonly tracing: ToolTracingOptions | undefined;
  /** Whether a failure of `onInvocation` was reported with a warning already. */
  warnedAboutAudit: boolean;
}

/** One call to run. */
export interface InvocationRequest {
  readonly name: unknown;
  readonly args: unknown;
  readonly callId: string | undefined;
  readonly options: InvokeOptions;
  /** Where progress reports go; `undefined` when nobody listens. */
  readonly listener: ((update: ToolProgress) => void) | undefined;
  /** Which callback `listener` is, for the message when it throws. */
  readonly listenerName: string;
}

/** What an observed invocation learns on its way and gives the pipeline. */
export interface CallRecord {
  /** The tool's entry, once looked up (`undefined`: not registered). */
  entry: RegisteredTool | undefined;
  /** The trace id of the call's span, given to the tool as `context.traceId`. */
  readonly traceId: string | undefined;
}
