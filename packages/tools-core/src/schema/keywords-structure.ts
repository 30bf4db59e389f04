import type { Pattern } from './patterns.js';
import type { Schema } from './schema-graph.js';
import { isSchemaObject, type SchemaObject } from './snapshot.js';
import { attempt, type Evaluated, fail, goOn, type State, type Validator } from './state.js';

/** What the object keywords need from the compiler. */
export interface ObjectContext {
  validatorOf(schema: Schema): Validator;
  /** Compiles a `patternProperties` key. */
  pattern(source: string): Pattern;
}

function isSubschema(value: unknown): value is Schema {
  return typeof value === 'boolean' || isSchemaObject(value as SchemaObject);
}

/** Keys whose values JSON keeps (a property set to `undefined` is absent). */
export function presentKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (const key of keys) {
    if ((value as Record<string, unknown>)[key] === undefined) {
      return keys.filter((name) => (value as Record<string, unknown>)[name] !== undefined);
    }
  }
  return keys;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates `child` at `key` of the current place (the path follows). */
export function descend(
  validate: Validator,
  child: unknown,
  key: string | number,
  state: State,
): boolean {
  state.path.push(key);
  const valid = validate(child, state, undefined);
  state.path.pop();
  return valid;
}

function requiredChecks(schema: SchemaObject, checks: Validator[]): void {
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const dependent: [string, string[]][] = [];
  for (const keyword of ['dependentRequired', 'dependencies']) {
    const map = schema[keyword];
    if (!isSchemaObject(map)) continue;
    for (const name of Object.keys(map)) {
      const names = map[name];
      if (Array.isArray(names)) {
        dependent.push([name, names.filter((item): item is string => typeof item === 'string')]);
      }
    }
  }
  if (required.length === 0 && dependent.length === 0) return;
  checks.push((value, state) => {
    if (!isObject(value)) return true;
    let valid = true;
    for (const name of required) {
      if (value[name] === undefined || !Object.hasOwn(value, name)) {
        valid = fail(state, `must have required property '${name}'`);
        if (!goOn(state)) return false;
      }
    }
    for (const [name, names] of dependent) {
      if (value[name] === undefined) continue;
      for (const needed of names) {
        if (value[needed] === undefined || !Object.hasOwn(value, needed)) {
          valid = fail(state, `must have property '${needed}' when property '${name}' is present`);
          if (!goOn(state)) return false;
        }
      }
    }
    return valid;
  });
}

function propertyCountChecks(schema: SchemaObject, checks: Validator[]): void {
  const { minProperties, maxProperties } = schema;
  if (typeof minProperties !== 'number' && typeof maxProperties !== 'number') return;
  const min = typeof minProperties === 'number' ? minProperties : 0;
  const max = typeof maxProperties === 'number' ? maxProperties : Number.POSITIVE_INFINITY;
  checks.push((value, state) => {
    if (!isObject(value)) return true;
    const count = presentKeys(value).length;
    if (count < min) return fail(state, `must have at least ${min} properties`);
    return count <= max || fail(state, `must have at most ${max} properties`);
  });
}

/** `properties`, `patternProperties`, `additionalProperties` and `propertyNames`, compiled. */
interface PropertyRules {
  readonly named: Map<string, Validator>;
  readonly patterns: [Pattern, Validator][];
  /** `additionalProperties` as written (`false`: no other key is allowed). */
  readonly additional: Schema | undefined;
  readonly additionalCheck: Validator | undefined;
  readonly names: Validator | undefined;
}

/** Compiles the property keywords of `schema`; `undefined` when it has none. */
function propertyRules(schema: SchemaObject, context: ObjectContext): PropertyRules | undefined {
  const properties = isSchemaObject(schema.properties) ? schema.properties : undefined;
  const named = new Map<string, Validator>();
  if (properties !== undefined) {
    for (const name of Object.keys(properties)) {
      const child = properties[name];
      if (isSubschema(child)) named.set(name, context.validatorOf(child));
    }
  }
  const patterns: [Pattern, Validator][] = [];
  if (isSchemaObject(schema.patternProperties)) {
    for (const pattern of Object.keys(schema.patternProperties)) {
      const child = schema.patternProperties[pattern];
      if (isSubschema(child)) patterns.push([context.pattern(pattern), context.validatorOf(child)]);
    }
  }
  const additional = isSubschema(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  const additionalCheck = additional === undefined ? undefined : context.validatorOf(additional);
  const names = isSubschema(schema.propertyNames)
    ? context.validatorOf(schema.propertyNames)
    : undefined;
  if (named.size === 0 && patterns.length === 0 && additional === undefined && !names) {
    return undefined;
  }
  return { named, patterns, additional, additionalCheck, names };
}

/**
 * `properties`, `patternProperties`, `additionalProperties` and `propertyNames`: one pass over
 * the value's keys. Marks the keys they evaluated in `evaluated`.
 */
function propertyChecks(schema: SchemaObject, checks: Validator[], context: ObjectContext): void {
  const rules = propertyRules(schema, context);
  if (rules === undefined) return;
  checks.push((value, state, evaluated) => {
    if (!isObject(value)) return true;
    let valid = true;
    for (const key of presentKeys(value)) {
      const result = checkProperty(rules, value, key, state, evaluated);
      if (!result) {
        valid = false;
        if (!goOn(state)) return false;
      }
    }
    return valid;
  });
}

/** Checks one key of `value` against the property rules; marks it evaluated when one applied. */
function checkProperty(
  rules: PropertyRules,
  value: Record<string, unknown>,
  key: string,
  state: State,
  evaluated: Evaluated | undefined,
): boolean {
  let valid = true;
  if (rules.names !== undefined && !descend(rules.names, key, key, state)) {
    valid = fail(state, 'is not an allowed property name');
    if (!goOn(state)) return false;
  }
  const child = value[key];
  let matched = false;
  const byName = rules.named.get(key);
  if (byName !== undefined) {
    matched = true;
    if (!descend(byName, child, key, state)) {
      valid = false;
      if (!goOn(state)) return false;
    }
  }
  for (const [pattern, validate] of rules.patterns) {
    const hit = pattern.test(key, state, true);
    if (hit === undefined) return false;
    if (!hit) continue;
    matched = true;
    // An unchecked (untrusted) pattern cannot say which keys it names: every key counts as
    // named by it (no additionalProperties refusal), and its subschema is not applied.
    if (pattern.unchecked) continue;
    if (!descend(validate, child, key, state)) {
      valid = false;
      if (!goOn(state)) return false;
    }
  }
  if (!matched && rules.additionalCheck !== undefined) {
    matched = true;
    if (rules.additional === false) {
      valid = fail(state, `must not have property '${key}'`);
    } else if (!descend(rules.additionalCheck, child, key, state)) {
      valid = false;
    }
  }
  if (matched && evaluated !== undefined) evaluated.properties.add(key);
  return valid;
}

/** The object keywords of one schema. */
export function objectChecks(
  schema: SchemaObject,
  checks: Validator[],
  context: ObjectContext,
): void {
  requiredChecks(schema, checks);
  propertyCountChecks(schema, checks);
  propertyChecks(schema, checks, context);
}

/** `unevaluatedProperties`: run after every other keyword of the schema, on what they left. */
export function unevaluatedPropertiesCheck(
  schema: SchemaObject,
  context: ObjectContext,
): ((value: unknown, state: State, evaluated: Evaluated) => boolean) | undefined {
  const rule = schema.unevaluatedProperties;
  if (!isSubschema(rule)) return undefined;
  const validate = context.validatorOf(rule);
  return (value, state, evaluated) => {
    if (!isObject(value)) return true;
    let valid = true;
    for (const key of presentKeys(value)) {
      if (evaluated.properties.has(key)) continue;
      const ok =
        rule === false
          ? fail(state, `must not have unevaluated property '${key}'`)
          : descend(validate, value[key], key, state);
      if (!ok) {
        valid = false;
        if (!goOn(state)) return false;
      }
      evaluated.properties.add(key);
    }
    return valid;
  };
}

/** A key under which two equal JSON values collide (object keys sorted). Depth is bounded. */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `${typeof value}:${String(value)}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

function itemCountChecks(schema: SchemaObject, checks: Validator[]): void {
  const { minItems, maxItems, uniqueItems } = schema;
  if (typeof minItems === 'number' || typeof maxItems === 'number') {
    const min = typeof minItems === 'number' ? minItems : 0;
    const max = typeof maxItems === 'number' ? maxItems : Number.POSITIVE_INFINITY;
    checks.push((value, state) => {
      if (!Array.isArray(value)) return true;
      if (value.length < min) return fail(state, `must have at least ${min} items`);
      return value.length <= max || fail(state, `must have at most ${max} items`);
    });
  }
  if (uniqueItems === true) {
    checks.push((value, state) => {
      if (!Array.isArray(value)) return true;
      const seen = new Map<string, number>();
      for (let index = 0; index < value.length; index++) {
        const key = canonical(value[index]);
        const first = seen.get(key);
        if (first !== undefined) {
          return fail(
            state,
            `must not have duplicate items (items ${first} and ${index} are equal)`,
          );
        }
        seen.set(key, index);
      }
      return true;
    });
  }
}

function itemChecks(schema: SchemaObject, checks: Validator[], context: ObjectContext): void {
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const prefix = tuple.filter(isSubschema).map((child) => context.validatorOf(child));
  // After the tuple: `items` (2020-12) or `additionalItems` (earlier drafts, items an array).
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  const restRule = isSubschema(rest) ? rest : undefined;
  const restCheck = restRule === undefined ? undefined : context.validatorOf(restRule);
  if (prefix.length === 0 && restCheck === undefined) return;
  checks.push((value, state, evaluated) => {
    if (!Array.isArray(value)) return true;
    let valid = true;
    for (let index = 0; index < value.length; index++) {
      const validate = index < prefix.length ? prefix[index] : restCheck;
      if (validate === undefined) break;
      const ok =
        index >= prefix.length && restRule === false
          ? fail(state, `must have at most ${prefix.length} items`)
          : descend(validate, value[index], index, state);
      if (!ok) {
        valid = false;
        if (!goOn(state)) return false;
      }
    }
    if (evaluated !== undefined) {
      const covered = restCheck === undefined ? prefix.length : Number.POSITIVE_INFINITY;
      if (covered > evaluated.items) evaluated.items = covered;
    }
    return valid;
  });
}

function containsCheck(schema: SchemaObject, checks: Validator[], context: ObjectContext): void {
  if (!isSubschema(schema.contains)) return;
  const validate = context.validatorOf(schema.contains);
  const min = typeof schema.minContains === 'number' ? schema.minContains : 1;
  const max =
    typeof schema.maxContains === 'number' ? schema.maxContains : Number.POSITIVE_INFINITY;
  checks.push((value, state, evaluated) => {
    if (!Array.isArray(value)) return true;
    let count = 0;
    for (let index = 0; index < value.length; index++) {
      state.path.push(index);
      const hit = attempt(state, validate, value[index], undefined);
      state.path.pop();
      if (state.exhausted) return false;
      if (hit) {
        count++;
        evaluated?.itemIndexes.add(index);
        if (count > max && evaluated === undefined) break;
        if (count >= min && max === Number.POSITIVE_INFINITY && evaluated === undefined) break;
      }
    }
    if (count < min) {
      return fail(state, `must contain at least ${min} matching item${min === 1 ? '' : 's'}`);
    }
    return count <= max || fail(state, `must contain at most ${max} matching items`);
  });
}

/** The array keywords of one schema. */
export function arrayChecks(
  schema: SchemaObject,
  checks: Validator[],
  context: ObjectContext,
): void {
  itemCountChecks(schema, checks);
  itemChecks(schema, checks, context);
  containsCheck(schema, checks, context);
}

/** `unevaluatedItems`: run after every other keyword of the schema, on what they left. */
export function unevaluatedItemsCheck(
  schema: SchemaObject,
  context: ObjectContext,
): ((value: unknown, state: State, evaluated: Evaluated) => boolean) | undefined {
  const rule = schema.unevaluatedItems;
  if (!isSubschema(rule)) return undefined;
  const validate = context.validatorOf(rule);
  return (value, state, evaluated) => {
    if (!Array.isArray(value)) return true;
    let valid = true;
    for (let index = evaluated.items; index < value.length; index++) {
      if (evaluated.itemIndexes.has(index)) continue;
      const ok =
        rule === false
          ? fail(state, `must not have unevaluated item ${index}`)
          : descend(validate, value[index], index, state);
      if (!ok) {
        valid = false;
        if (!goOn(state)) return false;
      }
    }
    evaluated.items = Number.POSITIVE_INFINITY;
    return valid;
  };
}
