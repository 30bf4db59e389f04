import type { AnyTool, BaseTool, ToolDefinition, ToolError } from '@agcore/tools-core';
import { type InvokeOptions, type ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
/**
 * The user's registry with the loop's built-in tools (`read_result`, `search_tools`) beside it, for one
 * submit: the user's registry is never changed. Built-ins answer first by name; their calls
 * skip the user's permission checker (they read only what the run produced), not the approval
 * policy. A user tool of the same name is hidden while the built-in is on.
 */
export class BuiltinToolRegistry extends ToolRegistry {
  readonly #inner: ToolRegistry;

  /** `inner` plus `builtins`. */
  constructor(inner: ToolRegistry, builtins: readonly BaseTool[]) {
    super();
    this.#inner = inner;
    for (const tool of builtins) super.register(tool);
  }

  /** The user's registry behind this one. */
  get inner(): ToolRegistry {
    return this.#inner;
  }

  /** The definitions of the built-ins alone. */
  ownDefinitions(): ToolDefinition[] {
    return super.definitions();
  }

  override get(name: string): AnyTool | undefined {
    return super.get(name) ?? this.#inner.get(name);
  }

  override has(name: string): boolean {
    return super.has(name) || this.#inner.has(name);
  }

  override listTools(): string[] {
    const own = super.listTools();
    return [...this.#inner.listTools().filter((name) => !own.includes(name)), ...own];
  }

  override definitions(): ToolDefinition[] {
    const own = super.definitions();
    const names = new Set(own.map((definition) => definition.function.name));
    return [
      ...this.#inner.definitions().filter((definition) => !names.has(definition.function.name)),
      ...own,
    ];
  }

  override checkCall(name: string, args: unknown): ToolError | undefined {
    return super.has(name) ? super.checkCall(name, args) : this.#inner.checkCall(name, args);
  }

  override invoke(name: string, args: unknown, options?: InvokeOptions): Promise<ToolInvocation> {
    return super.has(name)
      ? super.invoke(name, args, options)
      : this.#inner.invoke(name, args, options);
  }
}
