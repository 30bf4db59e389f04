import { describeThrown } from '../tool-error.js';
import type { SchemaTrust } from './patterns.js';
import { maxRegexProgramSize } from './regex.js';
import { maxRepeatCount } from './regex-parse.js';

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
  /**
   * Size of a validated value, in characters of its JSON text (estimated: the lengths of its
   * strings and keys, plus one per value); larger values are refused before validation.
   */
  maxValueSize: 16 * 1024 * 1024,
  /**
   * The base work budget of one validation (subschema applications plus pattern steps). The
   * budget is `max(maxValidationSteps, maxValidationStepsPerByte × size)`: past it the value
   * is refused.
   */
  maxValidationSteps: 500_000,
  /** The budget's share per character of the value's size (see `maxValidationSteps`). */
  maxValidationStepsPerByte: 32,
  /**
   * The longest string (UTF-16 code units) that a pattern of a trusted schema which the
   * linear engine cannot run (lookaround, backreferences) is checked on with the platform's
   * `RegExp`; a longer string fails validation, naming this limit.
   */
  maxNativePatternInputLength: 10_000,
  /** Problems one failed validation reports at most. */
  maxErrors: 5,
  /** Instructions one `pattern` may compile to on the linear engine (fixed). */
  maxRegexProgramSize,
  /** The largest `{n,m}` count in a `pattern` on the linear engine, as in RE2 (fixed). */
  maxRepeatCount,
});

/** The limits an option may set (`maxRegexProgramSize` and `maxRepeatCount` are fixed). */
type SettableLimit = Exclude<keyof typeof schemaLimits, 'maxRegexProgramSize' | 'maxRepeatCount'>;

/** Options of `createSchemaCompiler`: the limits of `schemaLimits`, trust, warnings, naming. */
export interface SchemaCompilerOptions {
  /** Default `schemaLimits.maxSchemaSize` (50 000). */
  readonly maxSchemaSize?: number;
  /** Default `schemaLimits.maxSchemaDepth` (128). */
  readonly maxSchemaDepth?: number;
  /** Default `schemaLimits.maxExpansion` (10 000). */
  readonly maxExpansion?: number;
  /** Default `schemaLimits.maxValueDepth` (128). */
  readonly maxValueDepth?: number;
  /** Default `schemaLimits.maxValueSize` (16 Mi characters). */
  readonly maxValueSize?: number;
  /** Default `schemaLimits.maxValidationSteps` (500 000). */
  readonly maxValidationSteps?: number;
  /** Default `schemaLimits.maxValidationStepsPerByte` (32). */
  readonly maxValidationStepsPerByte?: number;
  /** Default `schemaLimits.maxNativePatternInputLength` (10 000). */
  readonly maxNativePatternInputLength?: number;
  /** Default `schemaLimits.maxErrors` (5). */
  readonly maxErrors?: number;
  /** What problems call the value's root, as in "arguments.city must be string"; default `'value'`. */
  readonly valueName?: string;
  /**
   * Where the schemas come from, unless `compile` says otherwise; default `'trusted'`. It
   * decides only what happens to a pattern the linear engine cannot run: trusted, it runs on
   * the platform's `RegExp` on strings of at most `maxNativePatternInputLength`; untrusted, it
   * is not checked, and `onWarning` hears of it once.
   */
  readonly trust?: SchemaTrust;
  /**
   * Receives one warning per pattern (per compiler) that is left unchecked in an untrusted
   * schema. A throw from it is ignored. Without it the compiler says nothing.
   */
  readonly onWarning?: (message: string) => void;
}

/** The limits in force, with the value's name. */
export type Limits = { readonly [key in SettableLimit]: number } & {
  readonly valueName: string;
};

const settable: readonly SettableLimit[] = [
  'maxSchemaSize',
  'maxSchemaDepth',
  'maxExpansion',
  'maxValueDepth',
  'maxValueSize',
  'maxValidationSteps',
  'maxValidationStepsPerByte',
  'maxNativePatternInputLength',
  'maxErrors',
];

/** Reads the limits of `options`. @throws {TypeError} naming an option that is not a number >= 1. */
export function readLimits(options: SchemaCompilerOptions): Limits {
  const out: Record<string, number | string> = { valueName: options.valueName ?? 'value' };
  for (const key of settable) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'number' || !(value >= 1))) {
      throw new TypeError(
        `SchemaCompilerOptions.${key} must be a number >= 1, got ${String(value)}.`,
      );
    }
    out[key] = value ?? schemaLimits[key];
  }
  return out as Limits;
}

/** Reads a trust option. @throws {TypeError} naming `where` for anything but the two words. */
export function readTrust(trust: unknown, where: string): SchemaTrust {
  if (trust === undefined) return 'trusted';
  if (trust === 'trusted' || trust === 'untrusted') return trust;
  throw new TypeError(`${where} must be 'trusted' or 'untrusted', got ${describeThrown(trust)}.`);
}
