import { describeThrown } from './tool-error.js';

/** A JSON value: what a tool receives as arguments and returns as its result. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** The deepest nesting `describeNonJson` accepts by default (levels of arrays and objects). */
export const maxJsonDepth = 1000;

/** Options of `describeNonJson`. */
export interface DescribeNonJsonOptions {
  /** Deeper values are refused; default `maxJsonDepth` (1 000). */
  readonly maxDepth?: number;
}

interface Frame {
  readonly value: unknown;
  readonly key: string | number;
  readonly parent: Frame | undefined;
  readonly depth: number;
  /** Set on the second visit, when the object's children are done. */
  leaving?: boolean;
}

function pathOf(frame: Frame | undefined): string {
  const keys: (string | number)[] = [];
  for (let at = frame; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  let path = '$';
  for (let index = keys.length - 1; index >= 0; index--) {
    const key = keys[index] as string | number;
    path += typeof key === 'number' ? `[${key}]` : `.${key}`;
  }
  return path;
}

function primitiveProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : `is ${value}, which JSON cannot represent`;
    case 'undefined':
      return 'is undefined';
    case 'bigint':
      return 'is a BigInt';
    case 'function':
      return 'is a function';
    case 'symbol':
      return 'is a symbol';
    default:
      return undefined;
  }
}

/**
 * Tells why `value` is not JSON, or returns `undefined` when it is.
 *
 * It checks what `JSON.stringify` would do: `toJSON` is called (with the key, as
 * `JSON.stringify` does) and its output checked in turn; an `undefined` object property is
 * omitted; `undefined` elsewhere, functions, symbols, BigInts, non-finite
 * numbers, cycles and anything that throws while being read (a getter, a proxy trap, `toJSON`)
 * are refused, as is nesting deeper than `maxDepth`. Plain data is accepted by a quick
 * recursive pass (up to 32 levels); anything else goes to the full walk, which is iterative: no
 * recursion, so a value nested 100 000 levels deep is refused, not a stack overflow. Never throws.
 */
export function describeNonJson(
  value: unknown,
  options: DescribeNonJsonOptions = {},
): string | undefined {
  if (typeof value !== 'object' && typeof value !== 'bigint') {
    const problem = primitiveProblem(value);
    return problem === undefined ? undefined : `$ ${problem}`;
  }
  const maxDepth = options.maxDepth ?? maxJsonDepth;
  if (isPlainJson(value, Math.min(maxDepth, plainDepth))) return undefined;
  return firstProblem(value, maxDepth);
}

/** How deep the quick pass of `isPlainJson` goes before it leaves the value to the full walk. */
const plainDepth = 32;

/**
 * The quick pass: whether `value` is plain data (`null`, strings, booleans, finite numbers,
 * arrays and objects of Object.prototype or none, without `toJSON`, at most `depth` levels
 * deep), which JSON.stringify writes as it is. `false` only means "not sure": the full walk then
 * decides, and words the problem. A tool's result is almost always plain data, and this pass
 * costs a fraction of the walk (no frames, no ancestor set). A throw (a getter, a proxy's trap)
 * is "not sure" too; the walk then reads the value again and names where it threw. So when this
 * pass gives up, what it read is read twice (a getter with a side effect runs twice then).
 */
function isPlainJson(value: unknown, depth: number): boolean {
  try {
    return plainAt(value, depth);
  } catch {
    return false;
  }
}

function plainAt(value: unknown, depth: number): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  // Depth exhausted (deep data, or a cycle; NaN too): the walk decides.
  if (!(depth > 0)) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
    for (let index = 0; index < value.length; index++) {
      if (!plainAt(value[index], depth - 1)) return false;
    }
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item !== undefined && !plainAt(item, depth - 1)) return false;
  }
  return true;
}

/**
 * The full, iterative walk of `describeNonJson`, without its quick pass (exported for the
 * tests that hold the two to the same verdicts).
 */
export function firstProblem(value: unknown, maxDepth: number): string | undefined {
  const stack: Frame[] = [{ value, key: '', parent: undefined, depth: 0 }];
  const ancestors = new Set<object>();
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (frame.leaving) {
      ancestors.delete(frame.value as object);
      continue;
    }
    let current = frame.value;
    try {
      if ((typeof current === 'object' && current !== null) || typeof current === 'bigint') {
        const toJSON = (current as { toJSON?: unknown }).toJSON;
        if (typeof toJSON === 'function') current = toJSON.call(current, String(frame.key));
      }
      const problem = primitiveProblem(current);
      if (problem !== undefined) return `${pathOf(frame)} ${problem}`;
      if (typeof current !== 'object' || current === null) continue;
      if (current instanceof Number || current instanceof String || current instanceof Boolean) {
        continue;
      }
      if (ancestors.has(current)) {
        return `${pathOf(frame)} refers back to one of its parents (a cycle)`;
      }
      if (frame.depth >= maxDepth) {
        return `${pathOf(frame)} is nested deeper than ${maxDepth} levels (the limit)`;
      }
      ancestors.add(current);
      const resolved: Frame = { ...frame, value: current, leaving: true };
      stack.push(resolved);
      pushChildren(current, resolved, stack);
    } catch (error) {
      return `${pathOf(frame)} cannot be read: ${describeThrown(error)}`;
    }
  }
  return undefined;
}

function pushChildren(object: object, parent: Frame, stack: Frame[]): void {
  const depth = parent.depth + 1;
  if (Array.isArray(object)) {
    for (let index = object.length - 1; index >= 0; index--) {
      stack.push({ value: object[index], key: index, parent, depth });
    }
    return;
  }
  const keys = Object.keys(object);
  for (let index = keys.length - 1; index >= 0; index--) {
    const key = keys[index] as string;
    const item = (object as Record<string, unknown>)[key];
    // JSON.stringify omits an undefined property (a function or symbol is refused here: a tool
    // that returns one most likely meant something else).
    if (item === undefined) continue;
    stack.push({ value: item, key, parent, depth });
  }
}
