import type { JsonSchema } from '@agcore/tools-core';
import { createSchemaCompiler, type SchemaCheck } from '@agcore/tools-core/schema';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import type { McpToolInfo } from './types.js';

/**
 * The schemas of one client's tools, compiled with tools-core's schema compiler: a schema from
 * the server is untrusted, so it is compiled within documented limits (size, depth, `$ref`
 * expansion), its patterns run on a linear-time engine, and its `$id`s stay inside it. One
 * instance per client, shared by its connections: two clients, or one client before and after
 * a reconnect, never see each other's `$id`s.
 *
 * It is also the SDK `Client`'s `jsonSchemaValidator` (SDK 1.32.2), so the SDK's own check of
 * `structuredContent` against a tool's outputSchema runs on the same compiled checks instead of
 * compiling the schema with ajv (exponential patterns, `$ref` blow-ups, global `$id`s).
 */
export class ToolSchemas implements jsonSchemaValidator {
  private readonly inputs = createSchemaCompiler({ valueName: 'arguments' });
  private readonly outputs = createSchemaCompiler({ valueName: 'structuredContent' });
  /** The checks of the output schemas of the latest listing, by schema object. */
  private checks = new WeakMap<object, SchemaCheck>();

  /**
   * Compiles a listed tool's schemas. Returns why the tool must be left out (a schema beyond
   * the compiler's limits), or `undefined` when both compiled. Never throws.
   */
  prepare(tool: McpToolInfo): string | undefined {
    try {
      this.inputs.compile(tool.inputSchema, tool.name);
    } catch (error) {
      return `its inputSchema was refused (${reasonOf(error)})`;
    }
    if (tool.outputSchema === undefined) return undefined;
    try {
      this.checks.set(tool.outputSchema, this.outputs.compile(tool.outputSchema, tool.name));
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
  const inner = /was refused: (.*?)\. Simplify the schema/s.exec(message)?.[1];
  return (inner ?? message).replace(/\s+/g, ' ').trim();
}
