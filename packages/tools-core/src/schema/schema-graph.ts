import {
  fixTheSchema,
  isSchemaObject,
  type SchemaData,
  type SchemaObject,
  SchemaProblem,
} from './snapshot.js';

/** A schema: an object or a boolean. */
export type Schema = SchemaObject | boolean;

/**
 * Every subschema of one schema document, how they apply to a value, and where each `$ref`
 * leads. References resolve only inside the document: by JSON pointer, `$id`, `$anchor` or
 * `$dynamicAnchor` (static). Nothing is fetched, nothing is looked up in another schema.
 */
export interface SchemaGraph {
  /** Every object subschema reached, the root first. */
  readonly nodes: SchemaObject[];
  readonly index: Map<SchemaObject, number>;
  /** Where each node's `$ref`, `$dynamicRef` and `$recursiveRef` lead. */
  readonly references: Map<SchemaObject, Schema[]>;
  /** Subschemas applied to the same place of the value (allOf, anyOf, $ref...). */
  readonly inPlace: number[][];
  /** Subschemas applied to a child of the value (properties, items...). */
  readonly descending: number[][];
}

const inPlaceSingle = ['not', 'if', 'then', 'else'];
const inPlaceList = ['allOf', 'anyOf', 'oneOf'];
const inPlaceMap = ['dependentSchemas', 'dependencies'];
const descendingSingle = [
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'additionalItems',
  'unevaluatedItems',
  'contains',
];
const descendingList = ['prefixItems'];
const descendingMap = ['properties', 'patternProperties'];
const containers = ['$defs', 'definitions'];
const referenceKeywords = ['$ref', '$dynamicRef', '$recursiveRef'];

const defaultBase = 'https://schema.agcore.invalid/root.json';

interface Visit {
  readonly node: Schema;
  readonly base: string;
  readonly pointer: string;
  /** The node that applies it, and how (`undefined`: a root or a definition). */
  readonly parent?: { readonly index: number; readonly inPlace: boolean };
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function withoutFragment(href: string): string {
  const hash = href.indexOf('#');
  return hash < 0 ? href : href.slice(0, hash);
}

function resolve(reference: string, base: string): string {
  try {
    const href = new URL(reference, base).href;
    return href.endsWith('#') ? href.slice(0, -1) : href;
  } catch {
    throw new SchemaProblem(
      `its $ref or $id ${JSON.stringify(reference)} is not a valid URI`,
      fixTheSchema,
    );
  }
}

/** Children of `node` that are schemas, with how they apply and their pointer segment. */
function* children(
  node: SchemaObject,
): Generator<{ child: Schema; segment: string; inPlace: boolean | undefined }> {
  const single = (key: string, inPlace: boolean | undefined) => {
    const value = node[key];
    return isSchema(value) ? [{ child: value, segment: escapePointer(key), inPlace }] : [];
  };
  const list = (key: string, inPlace: boolean | undefined) => {
    const value = node[key];
    if (!Array.isArray(value)) return [];
    return value.flatMap((child, at) =>
      isSchema(child) ? [{ child, segment: `${escapePointer(key)}/${at}`, inPlace }] : [],
    );
  };
  const map = (key: string, inPlace: boolean | undefined) => {
    const value = node[key];
    if (!isSchemaObject(value)) return [];
    return Object.keys(value).flatMap((name) => {
      const child = value[name];
      return isSchema(child)
        ? [{ child, segment: `${escapePointer(key)}/${escapePointer(name)}`, inPlace }]
        : [];
    });
  };
  for (const key of inPlaceSingle) yield* single(key, true);
  for (const key of inPlaceList) yield* list(key, true);
  for (const key of inPlaceMap) yield* map(key, true);
  for (const key of descendingSingle) yield* single(key, false);
  for (const key of descendingList) yield* list(key, false);
  for (const key of descendingMap) yield* map(key, false);
  yield* Array.isArray(node.items) ? list('items', false) : single('items', false);
  for (const key of containers) yield* map(key, undefined);
}

function isSchema(value: SchemaData | undefined): value is Schema {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/**
 * Walks the schema, indexes its subschemas and resolves its references.
 *
 * @throws {SchemaProblem} for a `$ref` that does not resolve inside the schema, or an invalid URI.
 */
export function buildSchemaGraph(root: Schema, draft4: boolean): SchemaGraph {
  const graph: SchemaGraph = {
    nodes: [],
    index: new Map(),
    references: new Map(),
    inPlace: [],
    descending: [],
  };
  const known = new Map<string, Schema>();
  const bases = new Map<SchemaObject, string>();
  const visits: Visit[] = [{ node: root, base: defaultBase, pointer: '' }];
  const walk = (): void => {
    while (visits.length > 0) {
      const visit = visits.pop() as Visit;
      const index = register(graph, known, bases, visit, draft4);
      if (index === undefined) continue;
      const node = graph.nodes[index] as SchemaObject;
      const base = bases.get(node) as string;
      const pointer = visit.base === base ? visit.pointer : '';
      for (const { child, segment, inPlace } of children(node)) {
        visits.push({
          node: child,
          base,
          pointer: `${pointer}/${segment}`,
          ...(inPlace === undefined ? {} : { parent: { index, inPlace } }),
        });
      }
    }
  };
  walk();
  // Resolving may reach schemas only a JSON pointer names (under an unknown keyword): walk them too.
  for (let index = 0; index < graph.nodes.length; index++) {
    const node = graph.nodes[index] as SchemaObject;
    const targets: Schema[] = [];
    for (const keyword of referenceKeywords) {
      const reference = node[keyword];
      if (reference === undefined) continue;
      if (typeof reference !== 'string') {
        throw new SchemaProblem(`its ${keyword} is not a string`, fixTheSchema);
      }
      const target = lookUp(reference, bases.get(node) as string, known, visits);
      walk();
      targets.push(target);
      if (isSchemaObject(target)) {
        (graph.inPlace[index] as number[]).push(graph.index.get(target) as number);
      }
    }
    if (targets.length > 0) graph.references.set(node, targets);
  }
  return graph;
}

function register(
  graph: SchemaGraph,
  known: Map<string, Schema>,
  bases: Map<SchemaObject, string>,
  visit: Visit,
  draft4: boolean,
): number | undefined {
  const { node, parent } = visit;
  if (!isSchemaObject(node)) return undefined;
  let index = graph.index.get(node);
  const isNew = index === undefined;
  if (index === undefined) {
    index = graph.nodes.length;
    graph.nodes.push(node);
    graph.index.set(node, index);
    graph.inPlace.push([]);
    graph.descending.push([]);
  }
  if (parent !== undefined) {
    (parent.inPlace ? graph.inPlace : graph.descending)[parent.index]?.push(index);
  }
  if (!isNew) return undefined;
  let base = visit.base;
  let pointer = visit.pointer;
  const id = draft4 ? node.id : node.$id;
  if (typeof id === 'string' && id !== '') {
    const href = resolve(id, base);
    if (id.startsWith('#')) {
      known.set(href, node); // draft-07 style anchor
    } else {
      base = withoutFragment(href);
      pointer = '';
    }
  }
  bases.set(node, base);
  known.set(pointer === '' ? base : `${base}#${pointer}`, node);
  for (const keyword of ['$anchor', '$dynamicAnchor']) {
    const anchor = node[keyword];
    if (typeof anchor === 'string') known.set(`${base}#${anchor}`, node);
  }
  return index;
}

function lookUp(
  reference: string,
  base: string,
  known: Map<string, Schema>,
  visits: Visit[],
): Schema {
  const href = resolve(reference, base);
  const found = known.get(href);
  if (found !== undefined) return found;
  const hash = href.indexOf('#');
  const resource = hash < 0 ? undefined : known.get(href.slice(0, hash));
  const fragment = hash < 0 ? '' : decodeURIComponent(href.slice(hash + 1));
  if (resource !== undefined && fragment.startsWith('/')) {
    let target: SchemaData | undefined = resource;
    for (const raw of fragment.slice(1).split('/')) {
      const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      if (Array.isArray(target)) target = target[Number(segment)];
      else if (isSchemaObject(target)) {
        target = Object.hasOwn(target, segment) ? target[segment] : undefined;
      } else target = undefined;
    }
    if (isSchema(target)) {
      if (isSchemaObject(target)) {
        visits.push({ node: target, base: href.slice(0, hash), pointer: fragment });
      }
      return target;
    }
  }
  throw new SchemaProblem(
    `its $ref ${JSON.stringify(reference)} does not point inside the schema (references are resolved only within the tool's own schema, never fetched)`,
    fixTheSchema,
  );
}

/**
 * Refuses a schema whose validation could explode, before it is ever used: counts, for each
 * depth of the value up to `maxDepth`, how many subschemas one place of the value can be
 * checked against (following `$ref`, `allOf`, `anyOf`... and, one level down, `properties`,
 * `items`...). Twenty chained `anyOf` of two `$ref`s each give 2^20 at one place; a schema
 * whose every level doubles gives 2^depth. Either is refused when the count passes `limit`.
 *
 * Also refuses a `$ref` loop that never goes down into the value (`{ "$ref": "#" }`): its
 * validation would never end. Linear in the size of the graph per level; stops early once a
 * level looks like the one before (a recursive schema that does not grow).
 *
 * @throws {SchemaProblem} naming the limit.
 */
export function checkExpansion(graph: SchemaGraph, limit: number, maxDepth: number): void {
  const order = inPlaceOrder(graph);
  const size = graph.nodes.length;
  let entry = new Float64Array(size);
  entry[0] = 1;
  for (let depth = 0; depth <= maxDepth; depth++) {
    const applied = Float64Array.from(entry);
    let total = 0;
    for (const node of order) {
      const count = applied[node] as number;
      if (count === 0) continue;
      total += count;
      for (const child of graph.inPlace[node] as number[]) {
        applied[child] = (applied[child] as number) + count;
      }
    }
    if (total > limit) {
      throw new SchemaProblem(
        `one place of a value${depth === 0 ? '' : ` (at depth ${depth})`} would be checked against more than ${limit} subschemas (the schema expansion limit; chains of anyOf/oneOf/allOf over $ref grow exponentially)`,
      );
    }
    const next = new Float64Array(size);
    let any = false;
    let same = true;
    for (let node = 0; node < size; node++) {
      const count = applied[node] as number;
      if (count === 0) continue;
      for (const child of graph.descending[node] as number[]) {
        next[child] = (next[child] as number) + count;
        any = true;
      }
    }
    if (!any) return;
    for (let node = 0; node < size && same; node++) same = next[node] === entry[node];
    if (same) return;
    entry = next;
  }
}

/**
 * The nodes in an order where every node comes before the nodes it applies in place.
 *
 * @throws {SchemaProblem} when in-place applications loop.
 */
function inPlaceOrder(graph: SchemaGraph): number[] {
  const size = graph.nodes.length;
  // 0: not seen, 1: on the current path, 2: done.
  const state = new Uint8Array(size);
  const postOrder: number[] = [];
  for (let start = 0; start < size; start++) {
    if (state[start] !== 0) continue;
    const stack: [number, number][] = [[start, 0]];
    state[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [number, number];
      const [node, next] = top;
      const edges = graph.inPlace[node] as number[];
      if (next < edges.length) {
        top[1]++;
        const child = edges[next] as number;
        if (state[child] === 1) {
          throw new SchemaProblem(
            'its $ref (or allOf/anyOf/oneOf/not/if) chain loops back to itself without going into the value, so validation would never end',
            fixTheSchema,
          );
        }
        if (state[child] === 0) {
          state[child] = 1;
          stack.push([child, 0]);
        }
      } else {
        state[node] = 2;
        postOrder.push(node);
        stack.pop();
      }
    }
  }
  return postOrder.reverse();
}
