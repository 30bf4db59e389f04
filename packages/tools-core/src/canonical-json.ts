/** Stands for a piece of output text on the work stack of `canonicalJson`. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * The canonical JSON text of a JSON value, so that equal values give equal text: object keys
 * sorted by UTF-16 code units (JavaScript's default sort, as RFC 8785 orders them) at every
 * level, no whitespace, `undefined` members left out (an `undefined` array item is `null`),
 * strings and numbers as `JSON.stringify` writes them (so `-0` is `0` and `1e21` is `1e+21`, as
 * in RFC 8785). Recursion is bounded (32 levels; deeper values go to an iterative writer that
 * gives the same text): a value nested 100 000 levels deep cannot overflow the stack. Meant for JSON data (what a server or a model sends); never throws for it.
 */
export function canonicalJson(root: unknown): string {
  return nested(root, 0) ?? deep(root);
}

/** Values nested deeper than this go to the iterative writer. */
const maxRecursion = 32;

/** The same text, written recursively (faster for the usual small value); `undefined` when too deep. */
function nested(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= maxRecursion) return undefined;
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let index = 0; index < value.length; index++) {
      const text = nested(value[index] === undefined ? null : value[index], depth + 1);
      if (text === undefined) return undefined;
      out += index === 0 ? text : `,${text}`;
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    const text = nested(item, depth + 1);
    if (text === undefined) return undefined;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

function deep(root: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Text) {
      out.push(item.text);
      continue;
    }
    if (item === null || typeof item !== 'object') {
      out.push(JSON.stringify(item) ?? 'null');
      continue;
    }
    if (Array.isArray(item)) {
      out.push('[');
      stack.push(new Text(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        stack.push(item[index] === undefined ? null : item[index]);
        if (index > 0) stack.push(new Text(','));
      }
      continue;
    }
    const record = item as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    out.push('{');
    stack.push(new Text('}'));
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      stack.push(record[key]);
      stack.push(new Text(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
    }
  }
  return out.join('');
}
