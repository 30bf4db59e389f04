/** A JSON value: what a tool receives as arguments and returns as its result. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Tells why `value` is not JSON, or returns `undefined` when it is.
 *
 * JSON here means what survives `JSON.stringify` and `JSON.parse` unchanged in meaning:
 * `undefined` (other than as an object property, which is omitted), functions, symbols,
 * BigInts, non-finite numbers and cycles are refused. Objects with a `toJSON` method are
 * accepted, since `JSON.stringify` gives them a JSON form. Never throws.
 */
export function describeNonJson(value: unknown): string | undefined {
  return check(value, '$', undefined);
}

function check(value: unknown, path: string, seen: Set<object> | undefined): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value)
        ? undefined
        : `${path} is ${value}, which JSON cannot represent`;
    case 'undefined':
      return `${path} is undefined`;
    case 'bigint':
      return `${path} is a BigInt`;
    case 'function':
      return `${path} is a function`;
    case 'symbol':
      return `${path} is a symbol`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const visited = seen ?? new Set<object>();
  if (visited.has(object)) return `${path} refers back to one of its parents (a cycle)`;
  visited.add(object);
  if (Array.isArray(object)) {
    for (let index = 0; index < object.length; index++) {
      const reason = check(object[index], `${path}[${index}]`, visited);
      if (reason !== undefined) return reason;
    }
  } else {
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      const reason = check(item, `${path}.${key}`, visited);
      if (reason !== undefined) return reason;
    }
  }
  visited.delete(object);
  return undefined;
}
