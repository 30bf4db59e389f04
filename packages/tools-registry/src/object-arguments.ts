/**
 * Why `args` is not a plain JSON object, as the end of "arguments must be a JSON object, got
 * …", or `undefined` when it is one. Chat APIs define a function call's arguments as a JSON
 * object, so nothing else reaches a tool, whatever its schema accepts. Plain: its prototype is
 * `Object.prototype` (of any realm) or `null`. Never throws.
 */
export function nonObjectArguments(args: unknown): string | undefined {
  if (typeof args !== 'object') return describePrimitive(args);
  if (args === null) return 'null';
  if (Array.isArray(args)) return 'an array';
  let prototype: object | null;
  try {
    prototype = Object.getPrototypeOf(args);
  } catch {
    return 'an object that could not be read';
  }
  // Object.prototype of this realm or another one (a vm context): its own prototype is null.
  if (prototype === null || prototype === Object.prototype) return undefined;
  try {
    if (Object.getPrototypeOf(prototype) === null) return undefined;
  } catch {
    return 'an object that could not be read';
  }
  return `a ${classNameOf(prototype)}`;
}

function describePrimitive(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'number':
      return `a number (${String(value)})`;
    case 'boolean':
      return `a boolean (${String(value)})`;
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
    case 'bigint':
      return 'a BigInt';
    case 'function':
      return 'a function';
    default:
      return 'a symbol';
  }
}

/** `Map`, `Date`, a class's name; "object of a class" when it cannot be read. */
function classNameOf(prototype: object): string {
  try {
    const name: unknown = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && /^[A-Za-z_$][\w$]{0,40}$/.test(name)) return name;
  } catch {
    // Described without its name below.
  }
  return 'object of a class';
}
