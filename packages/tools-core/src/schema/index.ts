import type { JsonSchema } from '../json-schema.js';
import { describeThrown, ToolError } from '../tool-error.js';
import { ValidatorBuilder } from './build.js';
import { type Limits, readLimits, readTrust, type SchemaCompilerOptions } from './limits.js';
import { PatternCache, type SchemaTrust } from './patterns.js';
import { buildSchemaGraph, checkExpansion, type Schema } from './schema-graph.js';
import { fixTheSchema, isSchemaObject, SchemaProblem, snapshotSchema } from './snapshot.js';
import type { State, Validator } from './state.js';
import { measureValue } from './value-size.js';

export { type SchemaCompilerOptions, schemaLimits } from './limits.js';
export type { SchemaTrust } from './patterns.js';

/**
 * Checks a value against a compiled schema: `undefined` when it is valid, otherwise a one-line
 * English description of the first problem(s). Never throws.
 */
export type SchemaCheck = (value: unknown) => string | undefined;

/** Compiles JSON Schemas into `SchemaCheck`s, within the limits it was made with. */
export interface SchemaCompiler {
  /**
   * Compiles `schema` (drafts 04 to 2020-12; `$ref` resolved only inside `schema`).
   *
   * Throws ToolError naming `subject` (a tool name) and the limit when the schema is beyond the
   * budget or cannot compile.
   *
   * @throws {ToolError} code `other`, with `toolName: subject`.
   */
  compile(schema: JsonSchema, subject: string, options?: CompileOptions): SchemaCheck;
}

/** Options of one `SchemaCompiler.compile`. */
export interface CompileOptions {
  /** Where this schema comes from; default the compiler's `trust` (itself `'trusted'`). */
  readonly trust?: SchemaTrust;
}

/**
 * Makes a schema compiler with its own state: `$id`s and compiled patterns never leak to
 * another compiler, and compiling the same schema twice works. Patterns (`pattern`,
 * `patternProperties`) run on a linear-time engine; each validation has a work budget; schemas
 * beyond the size, depth or expansion limits are refused by `compile`.
 *
 * @throws {TypeError} for a limit that is not a number >= 1.
 *
 * @example
 * const compiler = createSchemaCompiler({ valueName: 'arguments' });
 * const check = compiler.compile({ type: 'object', required: ['city'] }, 'get_weather');
 * check({}); // "arguments must have required property 'city'"
 */
export function createSchemaCompiler(options: SchemaCompilerOptions = {}): SchemaCompiler {
  const limits = readLimits(options);
  const defaultTrust = readTrust(options.trust, 'SchemaCompilerOptions.trust');
  const patterns = new PatternCache(limits.maxNativePatternInputLength, options.onWarning);
  return {
    compile(schema, subject, compileOptions) {
      const trust =
        compileOptions?.trust === undefined
          ? defaultTrust
          : readTrust(compileOptions.trust, 'CompileOptions.trust');
      const pending = new Map<string, string>();
      let validate: Validator;
      try {
        validate = build(schema, limits, (source) => patterns.get(source, trust, subject, pending));
      } catch (error) {
        throw new ToolError(
          'other',
          `The schema of tool '${subject}' was refused: ${whyRefused(error)}.`,
          { toolName: subject, cause: error },
        );
      }
      patterns.warn(pending);
      return checker(validate, limits);
    },
  };
}

/** The reason and what to do, as one sentence after "was refused: ". */
function whyRefused(error: unknown): string {
  try {
    if (error instanceof SchemaProblem) return `${error.message}. ${error.advice}`;
    if (error instanceof RangeError) {
      return 'it is nested too deeply to compile. Simplify the schema';
    }
  } catch {
    // A hostile thrown value (a proxy whose traps throw): described below.
  }
  return `it cannot be compiled (${describeThrown(error)}). Fix the schema`;
}

function build(
  schema: unknown,
  limits: Limits,
  pattern: ConstructorParameters<typeof ValidatorBuilder>[1],
): Validator {
  const data = snapshotSchema(schema, limits.maxSchemaSize, limits.maxSchemaDepth);
  if (typeof data !== 'boolean' && !isSchemaObject(data)) {
    throw new SchemaProblem('it is not a JSON Schema (an object or a boolean)', fixTheSchema);
  }
  const root: Schema = data;
  const dialect = isSchemaObject(root) && typeof root.$schema === 'string' ? root.$schema : '';
  const graph = buildSchemaGraph(root, dialect.includes('draft-04'));
  if (graph.nodes.length > 0) checkExpansion(graph, limits.maxExpansion, limits.maxValueDepth);
  return new ValidatorBuilder(graph, pattern).validatorOf(root);
}

function newState(limits: Limits): State {
  return {
    steps: limits.maxValidationSteps,
    errors: [],
    exhausted: false,
    path: [],
    maxErrors: limits.maxErrors,
    valueName: limits.valueName,
  };
}

function checker(validate: Validator, limits: Limits): SchemaCheck {
  const { valueName } = limits;
  // One state object serves every call (validation is synchronous); a check re-entered from a
  // getter of the value being checked gets a fresh one.
  let spare: State | undefined = newState(limits);
  return (value) => {
    const state = spare ?? newState(limits);
    spare = undefined;
    state.exhausted = false;
    state.path.length = 0;
    state.errors = [];
    try {
      const size = measureValue(value, limits);
      if (typeof size === 'string') return size;
      const budget = budgetFor(size, limits);
      state.steps = budget;
      const valid = validate(value, state, undefined);
      if (state.exhausted) {
        return `${valueName} is too large or too complex to validate within ${budget} steps (the validation budget: the larger of ${limits.maxValidationSteps} and ${limits.maxValidationStepsPerByte} steps per character of its JSON, about ${size})`;
      }
      if (valid) return undefined;
      const errors = state.errors ?? [];
      if (errors.length === 0) return `${valueName} does not match the schema`;
      const more = errors.length >= limits.maxErrors ? ' (and maybe more)' : '';
      return oneLine(errors.join('; ') + more);
    } catch (error) {
      return whyUnreadable(error, valueName);
    } finally {
      spare = state;
    }
  };
}

/**
 * The work one validation may do: `max(maxValidationSteps, maxValidationStepsPerByte × size)`,
 * so that work linear in the value's size passes at any size and only work far above it
 * (a schema that checks each character or item many times over) is cut.
 */
function budgetFor(size: number, limits: Limits): number {
  return Math.max(limits.maxValidationSteps, limits.maxValidationStepsPerByte * size);
}

function whyUnreadable(error: unknown, valueName: string): string {
  try {
    if (error instanceof RangeError) return `${valueName} is nested too deeply to validate`;
  } catch {
    // A hostile thrown value: described below.
  }
  return oneLine(`${valueName} could not be read: ${describeThrown(error)}`);
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ');
}
