import type { JsonSchema } from '@agcore/tools-core';
import type { SchemaCheck, SchemaCompiler } from '@agcore/tools-core/schema';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import type { McpToolInfo } from '../types.js';

/**
 * The schemas of one client's tools, compiled with tools-core's schema compiler: a schema from
 * the server is untrusted (`trust: 'untrusted'`), so it is compiled within documented limits
 * (size, depth, `$ref` expansion), its patterns run on a linear-time engine (one that engine
 * cannot run is left unchecked, reported once through `onWarning`), and its `$id`s stay inside it. One
 * instance per client, shared by its connections: two clients, or one client before and after
 * a reconnect, never see each other's `$id`s.
 *
 * It is also the SDK `Client`'s `jsonSchemaValidator` (SDK 1.32.2), so the SDK's own check of
 * `structuredContent` against a tool's outputSchema runs on the same compiled checks instead of
 * compiling the schema with ajv (exponential patterns, `$ref` blow-ups, global `$id`s).
 */
export class ToolSchemas implements jsonSchemaValidator {
  private inputs: SchemaCompiler | undefined;
  private outputs: SchemaCompiler | undefined;
  /** The checks of the output schemas prepared so far, by schema object. */
  private readonly checks = new WeakMap<object, SchemaCheck>();
  /** The tool whose schema is being compiled, for the warnings the compiler gives meanwhile. */
  private compiling = '';
  /**
   * Receives each pattern the compilers leave unchecked, with the tool it was found in (the
   * client hands it to its reporter, hence to `McpClientOptions.onWarning`).
   */
  onWarning: ((toolName: string, message: string) => void) | undefined;

  /**
   * Loads the schema compiler (on the first listing: an application that never lists pays
   * nothing for it at start-up) and makes this client's compilers.
   */
  async load(): Promise<void> {
    if (this.inputs !== undefined) return;
    const { createSchemaCompiler } = await import('@agcore/tools-core/schema');
    const onWarning = (message: string): void => this.onWarning?.(this.compiling, message);
    const common = { trust: 'untrusted', onWarning } as const;
    this.inputs ??= createSchemaCompiler({ ...common, valueName: 'arguments' });
    this.outputs ??= createSchemaCompiler({ ...common, valueName: 'structuredContent' });
  }

  /**
   * Compiles a listed tool's schemas (after `load()`). Returns why the tool must be left out
   * (a schema beyond the compiler's limits), or `undefined` when both compiled. Never throws.
   */
  prepare(tool: McpToolInfo): string | undefined {
    const { inputs, outputs } = this;
    if (inputs === undefined || outputs === undefined) return 'its schemas were not compiled';
    this.compiling = tool.name;
    try {
      inputs.compile(tool.inputSchema, tool.name);
    } catch (error) {
      return `its inputSchema was refused (${reasonOf(error)})`;
    }
    if (tool.outputSchema === undefined) return undefined;
    try {
      this.checks.set(tool.outputSchema, outputs.compile(tool.outputSchema, tool.name));
    } catch (error) {
      return `its outputSchema was refused (${reasonOf(error)})`;
    }
    return undefined;
  }

  /**
   * SDK side: the check of an output schema that `prepare()` compiled. A schema it never saw
   * (not expected) is compiled now; one the compiler refuses fails every result with the reason.
   */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let check = this.checks.get(schema);
    if (check === undefined) {
      try {
        // The SDK asks only for the output schemas of tools that prepare() accepted.
        if (this.outputs === undefined) throw new Error('the schema compiler is not loaded');
        this.compiling = 'outputSchema';
        check = this.outputs.compile(schema as JsonSchema, 'outputSchema');
      } catch (error) {
        const refused = `the outputSchema was refused (${reasonOf(error)})`;
        check = () => refused;
      }
      this.checks.set(schema, check);
    }
    const compiled = check;
    return (input) => {
      const problem = compiled(input);
      return problem === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: problem };
    };
  }
}

/** The compiler's reason, without its own sentence around it. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const inner = /was refused: (.*?)\. (?:Simplify|Fix) /s.exec(message)?.[1];
  return (inner ?? message).replace(/\s+/g, ' ').trim();
}
