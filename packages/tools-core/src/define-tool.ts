import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { type BaseTool, isToolName } from './base-tool.js';
import type { JsonValue } from './json.js';
import type { FromJsonSchema, JsonSchema } from './json-schema.js';
import { checkRequiredPermissions, type Permission } from './permission.js';
import type { ToolContext } from './tool-context.js';
import { ToolError } from './tool-error.js';

/**
 * A tool of any argument type. Use it where you store or pass tools without caring about
 * their arguments (a registry does).
 */
export type AnyTool = BaseTool<never, JsonValue>;

/** A schema library's schema that can describe itself as JSON Schema (zod 4, valibot, arktype). */
export type StandardToolSchema<Input = unknown, Output = Input> = StandardJSONSchemaV1<
  Input,
  Output
>;

/** The arguments `execute` receives for a given `parameters` value. */
export type InferToolArgs<Parameters> =
  Parameters extends StandardJSONSchemaV1<unknown, infer Output>
    ? Output
    : FromJsonSchema<Parameters>;

/** What `defineTool` takes. */
export interface DefineToolOptions<Parameters, Result extends JsonValue> {
  /** Unique tool name: letters, digits, `_` and `-`, at most 64 characters (OpenAI's rule). */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** A JSON Schema (write it inline or `as const`), or a Standard JSON Schema such as a zod 4 object. */
  readonly parameters: Parameters;
  /** Permissions the tool needs. */
  readonly requiredPermissions?: readonly Permission[];
  /**
   * Whether a person must approve a call before it runs: `true`, or a function of the call's
   * arguments (typed, and parsed like `execute`'s with a Standard Schema). Default: never.
   */
  readonly needsApproval?:
    | boolean
    | ((args: InferToolArgs<Parameters>, context: ToolContext) => boolean | Promise<boolean>);
  /** Runs the tool; may return `awaitInput({ prompt, data })` to ask a person first. */
  execute(args: InferToolArgs<Parameters>, context: ToolContext): Promise<Result> | Result;
}

/**
 * Makes a tool in one call, with the type of `args` inferred from `parameters`.
 *
 * `parameters` is a plain JSON Schema object or any Standard JSON Schema (zod 4, valibot,
 * arktype): its JSON Schema is computed once, here. When the schema can also validate
 * (Standard Schema), `execute` receives the validated (parsed) value, and a failure is a
 * `ToolError` `invalid_arguments`.
 *
 * @throws {TypeError} when the name breaks the naming rule (`isToolName`), `parameters` is
 * neither a JSON Schema object nor a Standard JSON Schema whose JSON Schema describes an object,
 * or `needsApproval` is neither a boolean nor a function.
 * @throws {ToolError} `invalid_arguments` when `requiredPermissions` is not an array of
 * permissions (see `checkRequiredPermissions`).
 *
 * @example
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 *   execute: async ({ city }) => ({ city, temperature: 22 }),
 * });
 */
export function defineTool<
  const Parameters extends JsonSchema | StandardToolSchema,
  Result extends JsonValue,
>(options: DefineToolOptions<Parameters, Result>): BaseTool<InferToolArgs<Parameters>, Result> {
  const { name, description, parameters, requiredPermissions, needsApproval, execute } = options;
  if (!isToolName(name)) {
    throw new TypeError(
      `defineTool: tool name ${JSON.stringify(name)} is invalid; use 1 to 64 letters, digits, '_' or '-' (the LLM APIs refuse other names).`,
    );
  }
  const permissions = checkRequiredPermissions(name, requiredPermissions);
  const standard = readStandard(parameters);
  const jsonSchema =
    standard === undefined ? (parameters as JsonSchema) : toJsonSchema(name, standard);
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    throw new TypeError(`defineTool: parameters of tool '${name}' must be a JSON Schema object.`);
  }
  if (
    needsApproval !== undefined &&
    typeof needsApproval !== 'boolean' &&
    typeof needsApproval !== 'function'
  ) {
    throw new TypeError(
      `defineTool: needsApproval of tool '${name}' must be a boolean or a function of the arguments, got ${typeof needsApproval}.`,
    );
  }
  type Args = InferToolArgs<Parameters>;
  const parse = parser<Args>(name, standard?.validate);
  return {
    name,
    description,
    parameters: jsonSchema,
    ...(requiredPermissions === undefined ? {} : { requiredPermissions: permissions }),
    ...(needsApproval === undefined
      ? {}
      : {
          needsApproval:
            typeof needsApproval !== 'function'
              ? needsApproval
              : parse === undefined
                ? needsApproval
                : async (args: unknown, context: ToolContext) =>
                    needsApproval(await parse(args), context),
        }),
    execute:
      parse === undefined
        ? async (args: unknown, context: ToolContext): Promise<Result> =>
            execute(args as Args, context)
        : async (args: unknown, context: ToolContext): Promise<Result> =>
            execute(await parse(args), context),
  };
}

/**
 * Parses the arguments with the Standard Schema, as `execute` receives them; `undefined` when
 * the schema cannot validate (the arguments go as given). The parser rejects with `ToolError`
 * `invalid_arguments` when the schema refuses them.
 */
function parser<Args>(
  name: string,
  validate: StandardSchemaV1.Props['validate'] | undefined,
): ((args: unknown) => Promise<Args>) | undefined {
  if (validate === undefined) return undefined;
  return async (args) => {
    let result = validate(args);
    if (result instanceof Promise) result = await result;
    if (result.issues !== undefined) {
      throw new ToolError('invalid_arguments', describeIssues(name, result.issues), {
        toolName: name,
      });
    }
    return result.value as Args;
  };
}

type StandardProps = StandardJSONSchemaV1.Props & Partial<Pick<StandardSchemaV1.Props, 'validate'>>;

function readStandard(parameters: unknown): StandardProps | undefined {
  if ((typeof parameters !== 'object' && typeof parameters !== 'function') || parameters === null) {
    return undefined;
  }
  const props = (parameters as { '~standard'?: unknown })['~standard'];
  if (typeof props !== 'object' || props === null) return undefined;
  return props as StandardProps;
}

function toJsonSchema(name: string, standard: StandardProps): JsonSchema {
  const converter = standard.jsonSchema as StandardJSONSchemaV1.Converter | undefined;
  if (typeof converter?.input !== 'function') {
    throw new TypeError(
      `defineTool: the schema of tool '${name}' (${standard.vendor}) cannot give its JSON Schema; use a library that implements Standard JSON Schema (zod 4.2+, valibot with @valibot/to-json-schema, arktype 2.1+) or pass a JSON Schema object.`,
    );
  }
  const { $schema: _ignored, ...schema } = converter.input({ target: 'draft-07' });
  if (schema.type !== 'object') {
    throw new TypeError(
      `defineTool: the schema of tool '${name}' must describe an object (the LLM APIs take an arguments object), but its JSON Schema has type ${JSON.stringify(schema.type)}.`,
    );
  }
  return schema as JsonSchema;
}

function describeIssues(name: string, issues: readonly StandardSchemaV1.Issue[]): string {
  const lines = issues.slice(0, 5).map((issue) => {
    const path = (issue.path ?? [])
      .map((segment) => (typeof segment === 'object' ? segment.key : segment))
      .map(String)
      .join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `Invalid arguments for tool '${name}': ${lines.join('; ')}${more}. Call it again with arguments that match its parameters schema.`;
}
