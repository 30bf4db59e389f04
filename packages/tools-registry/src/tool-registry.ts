import {
  type AnyTool,
  type BaseTool,
  describeNonJson,
  type JsonValue,
  type Permission,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolProgress,
} from '@agcore/tools-core';
import type { PermissionChecker } from '@agcore/tools-permission';
import { type Deadline, scheduleDeadline } from './deadline-queue.js';
import { type ArgumentValidator, compileValidator } from './schema-validator.js';
import type { ToolEntry, ToolMeta, ToolStats } from './tool-entry.js';
import type { ToolInvocation, ToolOutput } from './tool-invocation.js';

/** Options of `new ToolRegistry()`. */
export interface ToolRegistryOptions {
  /** Time limit of one invocation in milliseconds; default 60 000. `0` or `Infinity`: none. */
  readonly timeoutMs?: number;
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

interface MutableEntry extends ToolEntry {
  readonly stats: ToolStats;
  readonly permissions: readonly Permission[];
  /** Compiled on first use: returns the `ToolError` for bad arguments, or `undefined`. */
  checkArguments: ((args: unknown) => ToolError | undefined) | undefined;
}

type Outcome = { value: unknown; error?: undefined } | { value?: undefined; error: ToolError };

const noPermissions: readonly Permission[] = Object.freeze([]);

/**
 * Holds tools, finds them, checks and runs them.
 *
 * `invoke` goes: look up → permission check → argument validation (JSON Schema, a validator
 * compiled once per tool) → `execute` under a time limit → JSON check of the result. It never
 * rejects for a tool's failure: the `ToolInvocation` reports it as a typed `ToolError`.
 *
 * @example
 * const registry = new ToolRegistry().withPermissionChecker(new PermissionChecker());
 * registry.register(weather);
 * const { output } = await registry.invoke('get_weather', { city: 'Paris' });
 */
export class ToolRegistry {
  private readonly entries = new Map<string, MutableEntry>();
  private checker: PermissionChecker | undefined;
  private readonly timeoutMs: number;
  private readonly validateArguments: boolean;
  private readonly sessionId: string;
  private definitionCache: readonly ToolDefinition[] | undefined;

  /**
   * Makes an empty registry.
   *
   * @throws {TypeError} when `timeoutMs` is negative or not a number.
   */
  constructor(options: ToolRegistryOptions = {}) {
    this.timeoutMs = checkTimeout(options.timeoutMs ?? 60_000, 'ToolRegistryOptions.timeoutMs');
    this.checker = options.permissionChecker;
    this.validateArguments = options.validateArguments ?? true;
    this.sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
  }

  /** Sets the permission policy (one checker may serve many registries) and returns this registry. */
  withPermissionChecker(checker: PermissionChecker): this {
    this.checker = checker;
    return this;
  }

  /** The permission policy in force, if any. */
  get permissionChecker(): PermissionChecker | undefined {
    return this.checker;
  }

  /** How many tools are registered. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Adds a tool.
   *
   * @throws {ToolError} `invalid_arguments` when the tool lacks a name, description, parameters
   * object or `execute` function; `other` when a tool of that name is already registered
   * (nothing is replaced).
   */
  register(tool: AnyTool, meta: ToolMeta = {}): this {
    validateTool(tool);
    if (this.entries.has(tool.name)) throw duplicate(tool.name);
    this.add(tool, meta);
    return this;
  }

  /**
   * Adds several tools, all or none: when one is malformed or its name is taken (or repeated
   * in the list), nothing is registered.
   *
   * @throws {ToolError} as `register`.
   */
  registerAll(tools: readonly AnyTool[], meta: ToolMeta = {}): this {
    const names = new Set<string>();
    for (const tool of tools) {
      validateTool(tool);
      if (this.entries.has(tool.name) || names.has(tool.name)) throw duplicate(tool.name);
      names.add(tool.name);
    }
    for (const tool of tools) this.add(tool, meta);
    return this;
  }

  /** Removes a tool; returns it, or `undefined` when there was none of that name. */
  unregister(name: string): AnyTool | undefined {
    const entry = this.entries.get(name);
    if (entry === undefined) return undefined;
    this.entries.delete(name);
    this.definitionCache = undefined;
    return entry.tool;
  }

  /** The tool of that name, or `undefined`. */
  get(name: string): AnyTool | undefined {
    return this.entries.get(name)?.tool;
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The tool's entry (tags, category, version, live stats), or `undefined`. */
  entry(name: string): ToolEntry | undefined {
    return this.entries.get(name);
  }

  /** The names of all tools, in registration order. */
  listTools(): string[] {
    return [...this.entries.keys()];
  }

  /** Every entry, in registration order. */
  listEntries(): ToolEntry[] {
    return [...this.entries.values()];
  }

  /**
   * The Chat Completions definitions of all tools, in registration order (stable between
   * calls, so prompt caches keep hitting). Computed once per change of the registry.
   */
  definitions(): ToolDefinition[] {
    if (this.definitionCache === undefined) {
      const definitions: ToolDefinition[] = [];
      for (const { tool } of this.entries.values()) {
        definitions.push(
          Object.freeze({
            type: 'function',
            function: Object.freeze({
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            }),
          }),
        );
      }
      this.definitionCache = Object.freeze(definitions);
    }
    return [...this.definitionCache];
  }

  /** Entries carrying `tag`, in registration order. */
  findByTag(tag: string): ToolEntry[] {
    return this.listEntries().filter((entry) => entry.tags.includes(tag));
  }

  /** Entries of `category`, in registration order. */
  findByCategory(category: string): ToolEntry[] {
    return this.listEntries().filter((entry) => entry.category === category);
  }

  /** Entries grouped by category, categories in order of first registration. */
  groups(): Map<string, ToolEntry[]> {
    const groups = new Map<string, ToolEntry[]>();
    for (const entry of this.entries.values()) {
      const group = groups.get(entry.category);
      if (group === undefined) groups.set(entry.category, [entry]);
      else group.push(entry);
    }
    return groups;
  }

  /**
   * Runs one tool call. Never rejects for the tool's sake: every failure is in
   * `invocation.output.error` with its code (`not_found`, `permission_denied`,
   * `invalid_arguments`, `execution_failed`, `timeout`, `cancelled`, or the code of a
   * `ToolError` the tool threw).
   *
   * @throws {TypeError} only for a negative or non-numeric `options.timeoutMs`.
   */
  invoke(name: string, args: unknown, options: InvokeOptions = {}): Promise<ToolInvocation> {
    return this.run(name, args, options.context?.toolCallId, options, options.context?.progress);
  }

  /**
   * Runs independent calls in parallel (at most `concurrency` at once), each with its own time
   * limit; one failure never affects the others. Results are in the order of `calls`.
   *
   * @throws {TypeError} when `concurrency` is not a positive integer. An exception thrown by
   * `onProgress` or `onResult` rejects the batch once every call has settled.
   */
  async invokeAll(
    calls: readonly ToolCallRequest[],
    options: InvokeAllOptions = {},
  ): Promise<ToolInvocation[]> {
    const { concurrency, onProgress, onResult } = options;
    if (
      concurrency !== undefined &&
      (!Number.isInteger(concurrency) || concurrency < 1) &&
      concurrency !== Number.POSITIVE_INFINITY
    ) {
      throw new TypeError(`invokeAll: concurrency must be a positive integer, got ${concurrency}.`);
    }
    const results: ToolInvocation[] = new Array(calls.length);
    let callbackError: { error: unknown } | undefined;
    const runOne = async (index: number): Promise<void> => {
      const call = calls[index] as ToolCallRequest;
      const progress =
        onProgress === undefined
          ? options.context?.progress
          : (update: ToolProgress) => {
              try {
                onProgress(update, call, index);
              } catch (error) {
                callbackError ??= { error };
              }
            };
      const invocation = await this.run(call.name, call.args, call.callId, options, progress);
      results[index] = invocation;
      if (onResult !== undefined) {
        try {
          onResult(invocation, index);
        } catch (error) {
          callbackError ??= { error };
        }
      }
    };
    const limit = Math.min(concurrency ?? calls.length, calls.length);
    if (limit >= calls.length) {
      const pending: Promise<void>[] = new Array(calls.length);
      for (let index = 0; index < calls.length; index++) pending[index] = runOne(index);
      await Promise.all(pending);
    } else {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < calls.length) await runOne(next++);
      };
      await Promise.all(Array.from({ length: limit }, worker));
    }
    if (callbackError !== undefined) throw callbackError.error;
    return results;
  }

  private add(tool: AnyTool, meta: ToolMeta): void {
    const entry: MutableEntry = {
      tool,
      tags: Object.freeze([...(meta.tags ?? [])]),
      category: meta.category ?? 'general',
      ...(meta.version === undefined ? {} : { version: meta.version }),
      stats: { calls: 0, failures: 0, totalDurationMs: 0, lastDurationMs: undefined },
      permissions: tool.requiredPermissions ?? noPermissions,
      checkArguments: undefined,
    };
    this.entries.set(tool.name, entry);
    this.definitionCache = undefined;
  }

  private async run(
    name: string,
    args: unknown,
    callId: string | undefined,
    options: InvokeOptions,
    progress: ((update: ToolProgress) => void) | undefined,
  ): Promise<ToolInvocation> {
    const start = performance.now();
    const entry = this.entries.get(name);
    if (entry === undefined) {
      return finish(name, callId, args, start, undefined, notFound(name, this.entries.size));
    }
    if (this.checker !== undefined && !this.checker.isAllowed(entry.permissions)) {
      try {
        this.checker.check(name, entry.permissions);
      } catch (error) {
        return finish(name, callId, args, start, entry, ToolError.from(error, name));
      }
    }
    if (this.validateArguments) {
      if (entry.checkArguments === undefined) entry.checkArguments = compile(entry);
      const problem = entry.checkArguments(args);
      if (problem !== undefined) return finish(name, callId, args, start, entry, problem);
    }
    const timeoutMs =
      options.timeoutMs === undefined
        ? this.timeoutMs
        : checkTimeout(options.timeoutMs, 'InvokeOptions.timeoutMs');
    const limited = timeoutMs > 0 && timeoutMs !== Number.POSITIVE_INFINITY;
    const outcome = await execute(entry.tool as unknown as BaseTool<unknown>, args, {
      timeoutMs,
      deadline: limited ? Date.now() + timeoutMs : undefined,
      callerSignal: options.signal ?? options.context?.signal,
      context: options.context,
      sessionId: this.sessionId,
      callId,
      progress,
    });
    if (outcome.error !== undefined) {
      return finish(name, callId, args, start, entry, outcome.error);
    }
    const reason = describeNonJson(outcome.value);
    if (reason !== undefined) {
      return finish(
        name,
        callId,
        args,
        start,
        entry,
        new ToolError(
          'execution_failed',
          `Tool '${name}' returned a value that is not JSON (${reason}). Return plain objects, arrays, strings, numbers, booleans or null.`,
          { toolName: name },
        ),
      );
    }
    return finish(name, callId, args, start, entry, undefined, outcome.value as JsonValue);
  }
}

interface ExecuteRequest {
  readonly timeoutMs: number;
  /** `Date.now()` when the time limit runs out; `undefined` without a limit. */
  readonly deadline: number | undefined;
  readonly callerSignal: AbortSignal | undefined;
  readonly context: Partial<ToolContext> | undefined;
  readonly sessionId: string;
  readonly callId: string | undefined;
  readonly progress: ((update: ToolProgress) => void) | undefined;
}

const knownContextKeys: ReadonlySet<string> = new Set([
  'sessionId',
  'traceId',
  'signal',
  'toolCallId',
  'progress',
  'deadline',
]);

/**
 * The `ToolContext` of one call. Its `signal` and `traceId` are made on first use: creating an
 * AbortSignal costs microseconds on Node (more than the rest of `invoke`) and most tools never
 * read it. Read them as properties; spreading the object (`{ ...context }`) copies only the
 * data fields, so pass the context itself (or `createToolContext(context)`) to derive one.
 */
class CallContext implements ToolContext {
  readonly sessionId: string;
  readonly toolCallId: string | undefined;
  readonly progress: ((update: ToolProgress) => void) | undefined;
  readonly deadline: number | undefined;
  #controller: AbortController | undefined;
  #abortReason: ToolError | undefined;
  #traceId: string | undefined;

  constructor(partial: Partial<ToolContext> | undefined, request: ExecuteRequest) {
    this.sessionId = partial?.sessionId ?? request.sessionId;
    this.toolCallId = request.callId;
    this.progress = request.progress;
    this.deadline = request.deadline;
    this.#traceId = partial?.traceId;
    if (partial !== undefined) {
      // Fields added to ToolContext later pass through untouched.
      for (const key of Object.keys(partial)) {
        if (!knownContextKeys.has(key)) {
          Object.defineProperty(this, key, {
            value: (partial as Record<string, unknown>)[key],
            enumerable: true,
          });
        }
      }
    }
  }

  get traceId(): string {
    this.#traceId ??= globalThis.crypto.randomUUID();
    return this.#traceId;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  abort(reason: ToolError): void {
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}

function execute(
  tool: BaseTool<unknown>,
  args: unknown,
  request: ExecuteRequest,
): Promise<Outcome> {
  const { timeoutMs, callerSignal } = request;
  const name = tool.name;
  if (callerSignal?.aborted) return Promise.resolve({ error: cancelled(name, callerSignal) });
  const context = new CallContext(request.context, request);
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    let deadline: Deadline | undefined;
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      deadline?.cancel();
      callerSignal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const abort = (error: ToolError): void => {
      context.abort(error);
      settle({ error });
    };
    const onAbort = (): void => abort(cancelled(name, callerSignal));
    if (timeoutMs > 0 && timeoutMs !== Number.POSITIVE_INFINITY) {
      deadline = scheduleDeadline(timeoutMs, () =>
        abort(
          new ToolError(
            'timeout',
            `Tool '${name}' did not finish within ${timeoutMs} ms and was aborted. Raise the timeout (timeoutMs) or make the tool faster.`,
            { toolName: name },
          ),
        ),
      );
    }
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    let pending: unknown;
    try {
      pending = tool.execute(args, context);
    } catch (error) {
      settle({ error: ToolError.from(error, name) });
      return;
    }
    if (typeof (pending as PromiseLike<unknown> | undefined)?.then === 'function') {
      (pending as PromiseLike<unknown>).then(
        (value) => settle({ value }),
        (error: unknown) => settle({ error: ToolError.from(error, name) }),
      );
    } else {
      settle({ value: pending });
    }
  });
}

function finish(
  toolName: string,
  callId: string | undefined,
  input: unknown,
  start: number,
  entry: MutableEntry | undefined,
  error: ToolError | undefined,
  value?: JsonValue,
): ToolInvocation {
  const durationMs = performance.now() - start;
  if (entry !== undefined) {
    const stats = entry.stats;
    stats.calls++;
    if (error !== undefined) stats.failures++;
    stats.totalDurationMs += durationMs;
    stats.lastDurationMs = durationMs;
  }
  const output: ToolOutput =
    error === undefined ? { ok: true, value: value ?? null } : { ok: false, error };
  return { toolName, callId, input, output, durationMs };
}

function compile(entry: MutableEntry): (args: unknown) => ToolError | undefined {
  const name = entry.tool.name;
  let validate: ArgumentValidator;
  try {
    validate = compileValidator(entry.tool.parameters);
  } catch (error) {
    const broken = new ToolError(
      'other',
      `Tool '${name}' has a parameters schema that cannot be compiled (${error instanceof Error ? error.message : String(error)}). Fix the tool's JSON Schema.`,
      { toolName: name, cause: error },
    );
    return () => broken;
  }
  return (args) => {
    const problem = validate(args);
    return problem === undefined
      ? undefined
      : new ToolError(
          'invalid_arguments',
          `Invalid arguments for tool '${name}': ${problem}. Call it again with arguments that match its parameters schema.`,
          { toolName: name },
        );
  };
}

function notFound(name: string, size: number): ToolError {
  return new ToolError(
    'not_found',
    size === 0
      ? `Tool '${name}' is not registered: the registry is empty. Register it before calling it.`
      : `Tool '${name}' is not registered. Check the name, or register the tool first.`,
    { toolName: name },
  );
}

function cancelled(name: string, signal: AbortSignal | undefined): ToolError {
  return new ToolError('cancelled', `Tool '${name}' was cancelled by the caller.`, {
    toolName: name,
    cause: signal?.reason,
  });
}

function duplicate(name: string): ToolError {
  return new ToolError(
    'other',
    `A tool named '${name}' is already registered; nothing was replaced. Unregister it first or choose another name.`,
    { toolName: name },
  );
}

function validateTool(tool: AnyTool): void {
  const candidate = tool as Partial<Record<keyof BaseTool, unknown>> | null | undefined;
  const problem =
    typeof candidate !== 'object' || candidate === null
      ? 'it is not an object'
      : typeof candidate.name !== 'string' || candidate.name === ''
        ? 'it has no name'
        : typeof candidate.description !== 'string'
          ? 'its description is not a string'
          : typeof candidate.parameters !== 'object' ||
              candidate.parameters === null ||
              Array.isArray(candidate.parameters)
            ? 'its parameters are not a JSON Schema object'
            : typeof candidate.execute !== 'function'
              ? 'it has no execute function'
              : undefined;
  if (problem !== undefined) {
    const name = typeof candidate?.name === 'string' ? candidate.name : undefined;
    throw new ToolError(
      'invalid_arguments',
      `Cannot register ${name === undefined ? 'this tool' : `tool '${name}'`}: ${problem}. A tool needs name, description, parameters and execute.`,
      name === undefined ? {} : { toolName: name },
    );
  }
}

function checkTimeout(value: number, what: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError(`${what} must be a number of milliseconds >= 0, got ${String(value)}.`);
  }
  return value;
}
