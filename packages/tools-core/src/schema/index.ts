import type { JsonSchema } from '../json-schema.js';
import { ToolError } from '../tool-error.js';
import { ValidatorBuilder } from './build.js';
import { type LinearRegex, maxRegexProgramSize } from './regex.js';
import { maxRepeatCount } from './regex-parse.js';
import { buildSchemaGraph, checkExpansion, type Schema } from './schema-graph.js';
import { isSchemaObject, SchemaProblem, snapshotSchema } from './snapshot.js';
import type { State, Validator } from './state.js';

/**
 * The limits of a schema compiler, every one documented in the README of
 * `@agcore/tools-core`. Override any of them with `createSchemaCompiler(options)`.
 */
export const schemaLimits = Object.freeze({
  /** Values in one schema (every object, array, string, number... counts one). */
  maxSchemaSize: 50_000,
  /** Nesting of a schema document, in JSON levels. */
  maxSchemaDepth: 128,
  /** Subschemas one place of a value may be checked against (through `$ref`, `anyOf`...). */
  maxExpansion: 10_000,
  /** Nesting of a validated value: deeper values are refused before validation. */
  maxValueDepth: 128,
  /** Work of one validation (subschema applications plus regex steps); past it the value is refused. */
  maxValidationSteps: 1_000_000,
  /** Problems one failed validation reports at most. */
  maxErrors: 5,
  /** Instructions one `pattern` may compile to (fixed). */
  maxRegexProgramSize,
  /** The largest `{n,m}` count in a `pattern`, as in RE2 (fixed). */
  maxRepeatCount,
});

/** Options of `createSchemaCompiler`: the limits of `schemaLimits`, and how to name the value. */
export interface SchemaCompilerOptions {
  /** Default `schemaLimits.maxSchemaSize` (50 000). */
  readonly maxSchemaSize?: number;
  /** Default `schemaLimits.maxSchemaDepth` (128). */
  readonly maxSchemaDepth?: number;
  /** Default `schemaLimits.maxExpansion` (10 000). */
  readonly maxExpansion?: number;
  /** Default `schemaLimits.maxValueDepth` (128). */
  readonly maxValueDepth?: number;
  /** Default `schemaLimits.maxValidationSteps` (1 000 000). */
  readonly maxValidationSteps?: number;
  /** Default `schemaLimits.maxErrors` (5). */
  readonly maxErrors?: number;
  /** What problems call the value's root, as in "arguments.city must be string"; default `'value'`. */
  readonly valueName?: string;
}

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
  compile(schema: JsonSchema, subject: string): SchemaCheck;
}

type Limits = Required<Omit<SchemaCompilerOptions, 'valueName'>> & { readonly valueName: string };

function readLimits(options: SchemaCompilerOptions): Limits {
  const limits = { ...schemaLimits, valueName: options.valueName ?? 'value' };
  const out: Record<string, number | string> = { ...limits };
  for (const key of Object.keys(schemaLimits) as (keyof typeof schemaLimits)[]) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value >= 1)) {
      throw new TypeError(
        `SchemaCompilerOptions.${key} must be a number >= 1, got ${String(value)}.`,
      );
    }
    out[key] = value;
  }
  return out as unknown as Limits;
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
  const regexCache = new Map<string, LinearRegex>();
  return {
    compile(schema, subject) {
      let validate: Validator;
      try {
        validate = build(schema, limits, regexCache);
      } catch (error) {
        throw new ToolError(
          'other',
          `The schema of tool '${subject}' was refused: ${whyRefused(error)}. Simplify the schema or raise the limit (SchemaCompilerOptions).`,
          { toolName: subject, cause: error },
        );
      }
      return checker(validate, limits);
    },
  };
}

function whyRefused(error: unknown): string {
  try {
    if (error instanceof SchemaProblem) return error.message;
    if (error instanceof RangeError) return 'it is nested too deeply to compile';
  } catch {
    // A hostile thrown value (a proxy whose traps throw): described below.
  }
  return `it cannot be compiled (${describe(error)})`;
}

function build(schema: unknown, limits: Limits, regexCache: Map<string, LinearRegex>): Validator {
  const data = snapshotSchema(schema, limits.maxSchemaSize, limits.maxSchemaDepth);
  if (typeof data !== 'boolean' && !isSchemaObject(data)) {
    throw new SchemaProblem('it is not a JSON Schema (an object or a boolean)');
  }
  const root: Schema = data;
  const dialect = isSchemaObject(root) && typeof root.$schema === 'string' ? root.$schema : '';
  const graph = buildSchemaGraph(root, dialect.includes('draft-04'));
  if (graph.nodes.length > 0) checkExpansion(graph, limits.maxExpansion, limits.maxValueDepth);
  return new ValidatorBuilder(graph, regexCache).validatorOf(root);
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
    state.steps = limits.maxValidationSteps;
    state.exhausted = false;
    state.path.length = 0;
    state.errors = [];
    try {
      const tooDeep = measureDepth(value, limits, state);
      if (tooDeep !== undefined) return tooDeep;
      const valid = validate(value, state, undefined);
      if (state.exhausted) {
        return `${valueName} is too large or too complex to validate within ${limits.maxValidationSteps} steps (the validation budget)`;
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

function whyUnreadable(error: unknown, valueName: string): string {
  try {
    if (error instanceof RangeError) return `${valueName} is nested too deeply to validate`;
  } catch {
    // A hostile thrown value: described below.
  }
  return oneLine(`${valueName} could not be read: ${describe(error)}`);
}

/** Refuses values nested deeper than the limit, without recursion; costs budget steps. */
function measureDepth(value: unknown, limits: Limits, state: State): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let stack: object[] | undefined;
  let depths: number[] | undefined;
  let item: object = value;
  let depth = 1;
  for (;;) {
    if (depth > limits.maxValueDepth) {
      return `${state.valueName} is nested deeper than ${limits.maxValueDepth} levels (the depth limit), or refers back to itself`;
    }
    if (--state.steps < 0) {
      return `${state.valueName} is too large to validate within ${limits.maxValidationSteps} steps (the validation budget)`;
    }
    const children = Array.isArray(item) ? item : Object.values(item);
    for (let index = 0; index < children.length; index++) {
      const child: unknown = children[index];
      if (typeof child === 'object' && child !== null) {
        stack ??= [];
        depths ??= [];
        stack.push(child);
        depths.push(depth + 1);
      }
    }
    if (stack === undefined || stack.length === 0) return undefined;
    item = stack.pop() as object;
    depth = depths?.pop() as number;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ');
}

function describe(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return String(error);
  } catch {
    return 'an error that cannot be read';
  }
}
