import { type AnyTool, type ToolDefinition, ToolError } from '@agcore/tools-core';
import { createSchemaCompiler, type SchemaCompiler } from '@agcore/tools-core/schema';
import type { PermissionChecker } from '@agcore/tools-permission';
import { reportInvocation } from './audit.js';
import { checkCall, invokeTool, unreadableCall } from './invocation.js';
import { invokeBatch } from './invoke-all.js';
import type {
  InvokeAllOptions,
  InvokeOptions,
  RegisteredTool,
  RegistryView,
  TimePolicy,
  ToolCallRequest,
  ToolRegistryOptions,
} from './options.js';
import { schemaWarningOnce } from './process-warning.js';
import { prepareEntry } from './registration.js';
import { resolveTimePolicy } from './time-policy.js';
import type { ToolEntry, ToolMeta } from './tool-entry.js';
import type { ToolInvocation } from './tool-invocation.js';
import { resolveTracing } from './tracing.js';

/**
 * Holds tools, finds them, checks and runs them.
 *
 * `register` checks each tool once (name rule, permissions copied and frozen, parameters
 * schema compiled within the limits of the registry's own schema compiler). `invoke` goes:
 * look up → permission check → argument validation → `execute` under the call's one time
 * limit → JSON check of the result. It never rejects: every failure is in the
 * `ToolInvocation` as a typed `ToolError`.
 *
 * @example
 * const registry = new ToolRegistry().withPermissionChecker(new PermissionChecker());
 * registry.register(weather);
 * const { output } = await registry.invoke('get_weather', { city: 'Paris' });
 */
export class ToolRegistry {
  private readonly entries = new Map<string, RegisteredTool>();
  private checker: PermissionChecker | undefined;
  private readonly validateArguments: boolean;
  private readonly sessionId: string;
  private readonly options: ToolRegistryOptions;
  private readonly time: TimePolicy;
  private readonly compiler: SchemaCompiler;
  private definitionCache: readonly ToolDefinition[] | undefined;
  private readonly view: RegistryView;

  /**
   * Makes an empty registry.
   *
   * @throws {TypeError} naming the option: `timeoutMs` or `maxTotalTimeoutMs` negative or not a
   * number, `resetTimeoutOnProgress` not a boolean, or an infinite `maxTotalTimeoutMs` with
   * `resetTimeoutOnProgress` on.
   */
  constructor(options: ToolRegistryOptions = {}) {
    this.options = { ...options };
    this.time = resolveTimePolicy({}, this.options);
    this.checker = options.permissionChecker;
    this.validateArguments = options.validateArguments ?? true;
    this.sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
    this.compiler = createSchemaCompiler({
      valueName: 'arguments',
      onWarning: schemaWarningOnce(),
    });
    const registry = this;
    this.view = {
      entries: this.entries,
      get checker() {
        return registry.checker;
      },
      validateArguments: this.validateArguments,
      sessionId: this.sessionId,
      options: this.options,
      time: this.time,
      tracing: resolveTracing(options.tracing),
      warnedAboutAudit: false,
    };
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

  /**
   * The longest a call of this registry's time policy may run, in milliseconds: `timeoutMs`
   * (capped by `maxTotalTimeoutMs`), or `maxTotalTimeoutMs` when progress extends calls;
   * `Infinity` when calls have no limit. What a server sizes a lease on a call by.
   */
  get callTimeLimitMs(): number {
    const { timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs } = this.time;
    return resetTimeoutOnProgress ? maxTotalTimeoutMs : Math.min(timeoutMs, maxTotalTimeoutMs);
  }

  /** How many tools are registered. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Adds a tool, after checking it: the name rule `^[a-zA-Z0-9_-]{1,64}$`, the shape,
   * `requiredPermissions` (an array of permissions; a frozen copy is kept, so changing the
   * tool's array later changes nothing), and its parameters schema (compiled now, within the
   * schema limits).
   *
   * @throws {ToolError} `invalid_arguments` for a malformed tool, a bad name or bad
   * permissions; `other` for a schema beyond the limits or that cannot compile (naming the tool
   * and the limit), or when a tool of that name is already registered (nothing is replaced).
   */
  register(tool: AnyTool, meta: ToolMeta = {}): this {
    const entry = prepareEntry(tool, meta, this.compiler);
    if (this.entries.has(entry.tool.name)) throw duplicate(entry.tool.name);
    this.add(entry);
    return this;
  }

  /**
   * Adds several tools, all or none: when one is refused or its name is taken (or repeated in
   * the list), nothing is registered.
   *
   * @throws {ToolError} as `register`.
   */
  registerAll(tools: readonly AnyTool[], meta: ToolMeta = {}): this {
    const prepared: RegisteredTool[] = [];
    const names = new Set<string>();
    for (const tool of tools) {
      const entry = prepareEntry(tool, meta, this.compiler);
      const { name } = entry.tool;
      if (this.entries.has(name) || names.has(name)) throw duplicate(name);
      names.add(name);
      prepared.push(entry);
    }
    for (const entry of prepared) this.add(entry);
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
   * Runs one tool call. Never throws and never rejects: every failure is in
   * `invocation.output.error` with its code (`not_found`, `permission_denied`,
   * `invalid_arguments`, `execution_failed`, `timeout`, `cancelled`, the code of a `ToolError`
   * the tool threw, or `other` for options of the wrong kind and a throwing
   * `context.progress`).
   */
  invoke(name: string, args: unknown, options: InvokeOptions = {}): Promise<ToolInvocation> {
    try {
      return invokeTool(this.view, {
        name,
        args,
        callId: options.context?.toolCallId,
        options,
        listener: options.context?.progress,
        listenerName: 'context.progress',
      });
    } catch (error) {
      const invocation = unreadableCall(this.view, name, args, error);
      reportInvocation(this.view, invocation, undefined);
      return Promise.resolve(invocation);
    }
  }

  /**
   * The checks `invoke` makes before it runs a tool, without running it: the name is
   * registered, the permission policy allows the tool, the arguments match its schema (when
   * `validateArguments` is on). Returns the `ToolError` `invoke` would report (`not_found`,
   * `permission_denied`, `invalid_arguments`), or `undefined` when the call would run. The LLM
   * loop asks it before asking a person to approve a call. Never throws.
   */
  checkCall(name: string, args: unknown): ToolError | undefined {
    return checkCall(this.view, name, args);
  }

  /**
   * Runs independent calls in parallel (at most `concurrency` at once), each with its own time
   * limit; one failure never affects the others. Results are in the order of `calls`. Never
   * rejects: a `concurrency` that is not a positive integer is reported as `other` on every
   * call (none runs), and a throwing `onProgress` or `onResult` on the call it was called for
   * (`other`, the callback's exception as `cause`).
   */
  invokeAll(
    calls: readonly ToolCallRequest[],
    options: InvokeAllOptions = {},
  ): Promise<ToolInvocation[]> {
    return invokeBatch(this.view, calls, options);
  }

  private add(entry: RegisteredTool): void {
    this.entries.set(entry.tool.name, entry);
    this.definitionCache = undefined;
  }
}

function duplicate(name: string): ToolError {
  return new ToolError(
    'other',
    `A tool named '${name}' is already registered; nothing was replaced. Unregister it first or choose another name.`,
    { toolName: name },
  );
}
