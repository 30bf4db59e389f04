import type { JsonObject, JsonValue } from './json.js';

/** Limits of `toJsonPreview`. */
export interface JsonPreviewLimits {
  /** Longest string kept whole, in UTF-16 units (default 2 000); longer ones are cut, saying how much. */
  readonly maxStringLength?: number;
  /** Most items of one array or keys of one object (default 100); the rest are counted. */
  readonly maxItems?: number;
  /** Deepest nesting of arrays and objects (default 16). */
  readonly maxDepth?: number;
  /** Most values in all (default 2 000); what comes after is left out, saying so. */
  readonly maxValues?: number;
}

interface Budget {
  readonly maxStringLength: number;
  readonly maxItems: number;
  readonly maxDepth: number;
  values: number;
  /** The objects on the path from the root to the value being copied (cycles). */
  readonly path: Set<object>;
}

/**
 * A JSON copy of any value, small enough to log: what an audit line or a span attribute holds
 * of a tool's arguments or result. It never throws and never runs away, whatever the value
 * (proxies whose traps throw, throwing getters and `toJSON`s, cycles, BigInts, a string of
 * 100 MB, an array of ten million items): strings, arrays, objects, depth and the total number
 * of values are cut at the limits, with a marker that says what was left out. What `JSON`
 * cannot hold reads as a marker string (`[Circular]`, `[function]`, `[BigInt 12]`,
 * `[unreadable: reason]`); `undefined` and non-finite numbers are treated as `JSON.stringify`
 * treats them. `JSON.stringify` of the copy never throws.
 */
export function toJsonPreview(value: unknown, limits: JsonPreviewLimits = {}): JsonValue {
  const budget: Budget = {
    maxStringLength: limits.maxStringLength ?? 2000,
    maxItems: limits.maxItems ?? 100,
    maxDepth: limits.maxDepth ?? 16,
    values: limits.maxValues ?? 2000,
    path: new Set(),
  };
  return copy(value, 0, budget) ?? null;
}

/** The copy of `value`; `undefined` for what an object leaves out (`undefined`, as JSON does). */
function copy(value: unknown, depth: number, budget: Budget): JsonValue | undefined {
  if (budget.values <= 0) return '[…]';
  budget.values--;
  switch (typeof value) {
    case 'string':
      return cutString(value, budget.maxStringLength);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'undefined':
      return undefined;
    case 'bigint':
      return `[BigInt ${cutString(String(value), 64)}]`;
    case 'symbol':
      return '[symbol]';
    case 'function':
      return '[function]';
    default:
      return value === null ? null : copyObject(value as object, depth, budget);
  }
}

function copyObject(value: object, depth: number, budget: Budget): JsonValue | undefined {
  if (budget.path.has(value)) return '[Circular]';
  if (depth >= budget.maxDepth) return '[nested too deep]';
  budget.path.add(value);
  try {
    const json = (value as { toJSON?: unknown }).toJSON;
    if (typeof json === 'function') {
      const converted: unknown = json.call(value, '');
      return converted === value ? copyPlain(value, depth, budget) : copy(converted, depth, budget);
    }
    return copyPlain(value, depth, budget);
  } catch (error) {
    return unreadable(error);
  } finally {
    budget.path.delete(value);
  }
}

function copyPlain(value: object, depth: number, budget: Budget): JsonValue {
  if (Array.isArray(value)) {
    const length = value.length;
    const shown = Math.min(length, budget.maxItems);
    const items: JsonValue[] = [];
    for (let index = 0; index < shown; index++) {
      const item = readOr(() => copy(value[index], depth + 1, budget));
      items.push(item ?? null);
    }
    if (length > shown) items.push(`[… ${length - shown} more items]`);
    return items;
  }
  const keys = Object.keys(value);
  const shown = Math.min(keys.length, budget.maxItems);
  const result: JsonObject = {};
  for (let index = 0; index < shown; index++) {
    const key = keys[index] as string;
    const item = readOr(() => copy((value as Record<string, unknown>)[key], depth + 1, budget));
    if (item !== undefined) result[cutString(key, budget.maxStringLength)] = item;
  }
  if (keys.length > shown) result['…'] = `[${keys.length - shown} more keys]`;
  return result;
}

/** Runs `get`; a throw becomes the `[unreadable: ...]` marker. */
function readOr(get: () => JsonValue | undefined): JsonValue | undefined {
  try {
    return get();
  } catch (error) {
    return unreadable(error);
  }
}

function unreadable(error: unknown): string {
  let reason: string;
  try {
    reason = error instanceof Error ? String(error.message) : typeof error;
  } catch {
    reason = 'an error that cannot be read';
  }
  return `[unreadable: ${cutString(reason, 200)}]`;
}

function cutString(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  return `${text.slice(0, maxLength)}…[${text.length - maxLength} more characters]`;
}
