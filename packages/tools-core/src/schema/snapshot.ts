/** The advice of a schema that is wrong rather than too large. */
export const fixTheSchema = 'Fix the schema (it is not valid JSON Schema as written)';

/** A schema the compiler refuses; the compiler turns it into a `ToolError` naming the tool. */
export class SchemaProblem extends Error {
  /**
   * @param message why, as "its pattern ... cannot be used".
   * @param advice what the user can do; the default suits a problem beyond a limit.
   */
  constructor(
    message: string,
    readonly advice = 'Simplify the schema or raise the limit (SchemaCompilerOptions)',
  ) {
    super(message);
  }
}

/** A JSON value as the compiler keeps it: plain data on null-prototype objects. */
export type SchemaData =
  | null
  | boolean
  | number
  | string
  | SchemaData[]
  | { [key: string]: SchemaData };

/** An object schema of the snapshot. */
export type SchemaObject = { readonly [key: string]: SchemaData };

interface Task {
  readonly source: unknown;
  readonly depth: number;
  readonly assign: (value: SchemaData) => void;
}

/**
 * Copies a schema into plain data, as `JSON.stringify` would see it (functions, symbols and
 * `undefined` left out), so that later changes to the tool's object, getters and proxies cannot
 * change what was checked. Iterative: no recursion, whatever the nesting.
 *
 * @throws {SchemaProblem} when the schema has more than `maxSize` values or is nested deeper
 * than `maxDepth` (a schema that contains itself is infinitely deep).
 */
export function snapshotSchema(schema: unknown, maxSize: number, maxDepth: number): SchemaData {
  let result: SchemaData = null;
  let size = 0;
  const tasks: Task[] = [{ source: schema, depth: 0, assign: (value) => (result = value) }];
  while (tasks.length > 0) {
    const { source, depth, assign } = tasks.pop() as Task;
    if (++size > maxSize) {
      throw new SchemaProblem(`it has more than ${maxSize} values (the schema size limit)`);
    }
    switch (typeof source) {
      case 'string':
      case 'boolean':
        assign(source);
        continue;
      case 'number':
        assign(Number.isFinite(source) ? source : null);
        continue;
      case 'object':
        break;
      default:
        assign(null);
        continue;
    }
    if (source === null) {
      assign(null);
      continue;
    }
    if (depth >= maxDepth) {
      throw new SchemaProblem(
        `it is nested deeper than ${maxDepth} levels (the schema depth limit), or contains itself`,
      );
    }
    if (Array.isArray(source)) {
      const copy: SchemaData[] = new Array(source.length).fill(null);
      assign(copy);
      for (let index = 0; index < source.length; index++) {
        tasks.push({
          source: source[index],
          depth: depth + 1,
          assign: (value) => (copy[index] = value),
        });
      }
      continue;
    }
    const copy = Object.create(null) as { [key: string]: SchemaData };
    assign(copy);
    for (const key of Object.keys(source)) {
      const value = (source as Record<string, unknown>)[key];
      const kind = typeof value;
      if (kind === 'undefined' || kind === 'function' || kind === 'symbol' || kind === 'bigint') {
        continue;
      }
      tasks.push({ source: value, depth: depth + 1, assign: (item) => (copy[key] = item) });
    }
  }
  return result;
}

/** Whether `value` is an object schema (not an array, not null). */
export function isSchemaObject(value: SchemaData | undefined): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
