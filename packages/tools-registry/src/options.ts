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
