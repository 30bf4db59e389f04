import type { JsonObject, JsonValue } from './json.js';
import type { JsonSchema } from './json-schema.js';
import type { Permission } from './permission.js';
import type { ToolContext } from './tool-context.js';

/**
 * A tool an LLM can call. Custom tools and MCP tools are both `BaseTool`s, so a registry and
 * the LLM loop treat them alike.
 *
 * `execute` receives the arguments (already checked against `parameters` when it runs through
 * a `ToolRegistry`) and a `ToolContext`; it returns a JSON value, or throws. Throw a
 * `ToolError` to choose the code; anything else becomes `execution_failed`.
 */
export interface BaseTool<Args = JsonObject, Result extends JsonValue = JsonValue> {
  /**
   * Unique name, matched against the model's `tool_calls[].function.name`; it follows
   * `isToolName` (`^[a-zA-Z0-9_-]{1,64}$`), which `ToolRegistry.register` enforces.
   */
  readonly name: string;
  /** What the tool does; the model reads this to decide when to call it. */
  readonly description: string;
  /** JSON Schema of the arguments object, sent to the model as is. */
  readonly parameters: JsonSchema;
  /** Permissions the tool needs; none declared means the checker's `allowUnspecified` decides. */
  readonly requiredPermissions?: readonly Permission[];
  /**
   * Whether a person must approve a call before it runs (the LLM loop asks: see
   * `LlmCycleOptions.approval`). A function decides per call, from the arguments (checked
   * against `parameters` first, when the call comes through a `ToolRegistry`); absent or `false`:
   * never.
   */
  readonly needsApproval?: boolean | NeedsApprovalFunction<Args>;
  /**
   * Where `parameters` comes from; absent: `'trusted'` (a schema the application defines, as
   * with `defineTool`). `'untrusted'` (what tools-mcp sets on MCP tools): a `pattern` the
   * linear-time engine cannot run (lookaround, backreferences) is left unchecked, with one
   * warning, instead of running on the platform's `RegExp`. See the schema section of the
   * `@agcore/tools-core` README.
   */
  readonly schemaTrust?: 'trusted' | 'untrusted';
  /**
   * Runs the tool. Should stop when `context.signal` aborts. To ask a person a question
   * before finishing, return `awaitInput({ prompt, data })` instead of a result.
   */
  execute(args: Args, context: ToolContext): Promise<Result>;
}

/**
 * Decides whether a call needs a person's approval, from its arguments. Declared as a method
 * (bivariant in `Args`, as `execute` is), so that a tool with typed arguments still passes
 * where any `BaseTool` is taken.
 */
export type NeedsApprovalFunction<Args> = {
  check(args: Args, context: ToolContext): boolean | Promise<boolean>;
}['check'];

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Whether `name` follows the one tool-name rule of agcore, `^[a-zA-Z0-9_-]{1,64}$`: what every
 * major chat API (OpenAI, Anthropic, Gemini) accepts as a function name. Never throws.
 */
export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && toolNamePattern.test(name);
}

/**
 * A tool as the OpenAI Chat Completions API takes it in `tools`:
 * `{ type: 'function', function: { name, description, parameters } }`.
 */
export interface ToolDefinition {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}

/** Makes the Chat Completions definition of a tool. Never throws. */
export function toToolDefinition(tool: BaseTool): ToolDefinition {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
