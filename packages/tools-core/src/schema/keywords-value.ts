import { formats } from './formats.js';
import type { Pattern } from './patterns.js';
import { fixTheSchema, type SchemaData, type SchemaObject, SchemaProblem } from './snapshot.js';
import { fail, type Validator } from './state.js';

/** The JSON type of a value, `undefined` for what JSON has not (functions, BigInts...). */
export function jsonType(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isFinite(value) ? 'number' : undefined;
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

/** Equality of JSON values (`1` equals `1.0`, objects by keys and values). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index]));
  }
  if (Array.isArray(right)) return false;
  const leftKeys = Object.keys(left).filter((key) => (left as SchemaObject)[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => (right as SchemaObject)[key] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every(
    (key) =>
      Object.hasOwn(right, key) &&
      jsonEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
  );
}

function shortJson(value: SchemaData): string {
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

const typeNames = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);

function typeCheck(types: readonly unknown[]): Validator {
  for (const name of types) {
    if (typeof name !== 'string' || !typeNames.has(name)) {
      throw new SchemaProblem(
        `its type ${JSON.stringify(name)} is not a JSON Schema type (${[...typeNames].join(', ')})`,
        fixTheSchema,
      );
    }
  }
  const accepts = (value: unknown): boolean => {
    const type = jsonType(value);
    if (type === undefined) return false;
    for (const expected of types) {
      if (expected === type) return true;
      if (expected === 'integer' && type === 'number' && Number.isInteger(value)) return true;
    }
    return false;
  };
  const message = `must be ${types.join(' or ')}`;
  return (value, state) => accepts(value) || fail(state, message);
}

function numberChecks(schema: SchemaObject, checks: Validator[]): void {
  const bound = (
    keyword: string,
    holds: (value: number, limit: number) => boolean,
    words: string,
  ): void => {
    const limit = schema[keyword];
    if (typeof limit !== 'number') return;
    checks.push(
      (value, state) =>
        typeof value !== 'number' ||
        holds(value, limit) ||
        fail(state, `must be ${words} ${limit}`),
    );
  };
  // Draft-04 writes exclusiveMaximum/exclusiveMinimum as booleans beside maximum/minimum.
  const exclusiveMax = schema.exclusiveMaximum === true;
  const exclusiveMin = schema.exclusiveMinimum === true;
  bound('maximum', exclusiveMax ? (v, l) => v < l : (v, l) => v <= l, exclusiveMax ? '<' : '<=');
  bound('minimum', exclusiveMin ? (v, l) => v > l : (v, l) => v >= l, exclusiveMin ? '>' : '>=');
  bound('exclusiveMaximum', (v, l) => v < l, '<');
  bound('exclusiveMinimum', (v, l) => v > l, '>');
  const divisor = schema.multipleOf;
  if (typeof divisor === 'number' && divisor > 0) {
    checks.push((value, state) => {
      if (typeof value !== 'number') return true;
      const quotient = value / divisor;
      const rounded = Math.round(quotient);
      return (
        (Number.isFinite(quotient) &&
          Math.abs(quotient - rounded) <= Number.EPSILON * 4 * Math.max(1, Math.abs(quotient))) ||
        fail(state, `must be a multiple of ${divisor}`)
      );
    });
  }
}

function codePointLength(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        index++;
      }
    }
  }
  return length;
}

function stringChecks(
  schema: SchemaObject,
  checks: Validator[],
  compilePattern: (source: string) => Pattern,
): void {
  const { minLength, maxLength, pattern, format } = schema;
  if (typeof minLength === 'number' || typeof maxLength === 'number') {
    const min = typeof minLength === 'number' ? minLength : 0;
    const max = typeof maxLength === 'number' ? maxLength : Number.POSITIVE_INFINITY;
    checks.push((value, state) => {
      if (typeof value !== 'string') return true;
      if (value.length < min) return fail(state, `must have at least ${min} characters`);
      if (value.length / 2 > max) return fail(state, `must have at most ${max} characters`);
      const length = codePointLength(value);
      if (length < min) return fail(state, `must have at least ${min} characters`);
      return length <= max || fail(state, `must have at most ${max} characters`);
    });
  }
  if (typeof pattern === 'string') {
    const matcher = compilePattern(pattern);
    const message = `must match pattern ${JSON.stringify(pattern)}`;
    checks.push((value, state) => {
      if (typeof value !== 'string') return true;
      const matched = matcher.test(value, state);
      return matched === true || (matched === false && fail(state, message));
    });
  }
  const formatCheck = typeof format === 'string' ? formats.get(format) : undefined;
  if (formatCheck !== undefined) {
    const message = `must match format ${JSON.stringify(format)}`;
    checks.push(
      (value, state) => typeof value !== 'string' || formatCheck(value) || fail(state, message),
    );
  }
}

/** The checks of `type`, `enum`, `const` and the number and string keywords. */
export function valueChecks(
  schema: SchemaObject,
  checks: Validator[],
  compilePattern: (source: string) => Pattern,
): void {
  const { type } = schema;
  if (typeof type === 'string') checks.push(typeCheck([type]));
  else if (Array.isArray(type)) checks.push(typeCheck(type));
  else if (type !== undefined)
    throw new SchemaProblem('its type is neither a string nor an array', fixTheSchema);
  if (Object.hasOwn(schema, 'const')) {
    const expected = schema.const as SchemaData;
    const message = `must be equal to ${shortJson(expected)}`;
    checks.push((value, state) => jsonEqual(value, expected) || fail(state, message));
  }
  const choices = schema.enum;
  if (Array.isArray(choices)) {
    const primitives = new Set<unknown>(
      choices.filter((item) => typeof item !== 'object' || item === null),
    );
    const structured = choices.filter((item) => typeof item === 'object' && item !== null);
    const message = `must be one of ${shortJson(choices)}`;
    checks.push(
      (value, state) =>
        primitives.has(value) ||
        (typeof value === 'object' && structured.some((item) => jsonEqual(value, item))) ||
        fail(state, message),
    );
  }
  numberChecks(schema, checks);
  stringChecks(schema, checks, compilePattern);
}
