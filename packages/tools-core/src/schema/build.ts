import {
  arrayChecks,
  objectChecks,
  unevaluatedItemsCheck,
  unevaluatedPropertiesCheck,
} from './keywords-structure.js';
import { valueChecks } from './keywords-value.js';
import type { Pattern } from './patterns.js';
import type { Schema, SchemaGraph } from './schema-graph.js';
import { isSchemaObject, type SchemaObject } from './snapshot.js';
import {
  attempt,
  type Evaluated,
  exhaust,
  fail,
  goOn,
  mergeEvaluated,
  newEvaluated,
  type Validator,
} from './state.js';

const alwaysValid: Validator = () => true;
const neverValid: Validator = (_value, state) => fail(state, 'is not allowed by the schema');

/**
 * Turns a schema graph into one validator: a closure per subschema, each made once (a `$ref`
 * to it reuses it, a recursive `$ref` goes through a forward reference).
 */
export class ValidatorBuilder {
  private readonly made = new Map<SchemaObject, Validator>();

  /**
   * @param graph the schema's subschemas and references.
   * @param pattern compiles a `pattern` or `patternProperties` key (with the schema's trust).
   */
  constructor(
    private readonly graph: SchemaGraph,
    readonly pattern: (source: string) => Pattern,
  ) {}

  validatorOf = (schema: Schema): Validator => {
    if (schema === true) return alwaysValid;
    if (schema === false) return neverValid;
    const known = this.made.get(schema);
    if (known !== undefined) return known;
    let built: Validator | undefined;
    this.made.set(schema, (value, state, evaluated) =>
      (built as Validator)(value, state, evaluated),
    );
    built = this.build(schema);
    this.made.set(schema, built);
    return built;
  };

  private build(schema: SchemaObject): Validator {
    const checks: Validator[] = [];
    for (const target of this.graph.references.get(schema) ?? []) {
      checks.push(this.validatorOf(target));
    }
    valueChecks(schema, checks, this.pattern);
    objectChecks(schema, checks, this);
    arrayChecks(schema, checks, this);
    this.logicChecks(schema, checks);
    const unevaluatedProperties = unevaluatedPropertiesCheck(schema, this);
    const unevaluatedItems = unevaluatedItemsCheck(schema, this);
    const run = (value: unknown, state: Parameters<Validator>[1], evaluated?: Evaluated) => {
      let valid = true;
      for (const check of checks) {
        if (!check(value, state, evaluated)) {
          valid = false;
          if (!goOn(state)) return false;
        }
      }
      return valid;
    };
    if (unevaluatedProperties === undefined && unevaluatedItems === undefined) {
      return (value, state, evaluated) => {
        if (--state.steps < 0) return exhaust(state);
        return run(value, state, evaluated);
      };
    }
    return (value, state, evaluated) => {
      if (--state.steps < 0) return exhaust(state);
      const own = newEvaluated();
      let valid = run(value, state, own);
      if (!valid && !goOn(state)) return false;
      if (unevaluatedProperties !== undefined && !unevaluatedProperties(value, state, own)) {
        valid = false;
        if (!goOn(state)) return false;
      }
      if (unevaluatedItems !== undefined && !unevaluatedItems(value, state, own)) valid = false;
      if (valid && evaluated !== undefined) mergeEvaluated(evaluated, own);
      return valid;
    };
  }

  private list(schema: SchemaObject, keyword: string): Validator[] {
    const value = schema[keyword];
    if (!Array.isArray(value)) return [];
    return value
      .filter(
        (item): item is SchemaObject | boolean => typeof item === 'boolean' || isSchemaObject(item),
      )
      .map(this.validatorOf);
  }

  private logicChecks(schema: SchemaObject, checks: Validator[]): void {
    checks.push(...this.list(schema, 'allOf'));
    const anyOf = this.list(schema, 'anyOf');
    if (anyOf.length > 0) checks.push(anyOfCheck(anyOf));
    const oneOf = this.list(schema, 'oneOf');
    if (oneOf.length > 0) checks.push(oneOfCheck(oneOf));
    const not = schema.not;
    if (typeof not === 'boolean' || isSchemaObject(not)) {
      const validate = this.validatorOf(not);
      checks.push((value, state) => {
        const matched = attempt(state, validate, value, undefined);
        if (state.exhausted) return false;
        return !matched || fail(state, 'must not match the schema in "not"');
      });
    }
    const condition = schema.if;
    if (typeof condition === 'boolean' || isSchemaObject(condition)) {
      checks.push(this.conditional(schema, condition));
    }
    for (const keyword of ['dependentSchemas', 'dependencies']) {
      const map = schema[keyword];
      if (!isSchemaObject(map)) continue;
      for (const name of Object.keys(map)) {
        const rule = map[name];
        if (typeof rule !== 'boolean' && !isSchemaObject(rule)) continue;
        const validate = this.validatorOf(rule);
        checks.push(
          (value, state, evaluated) =>
            typeof value !== 'object' ||
            value === null ||
            Array.isArray(value) ||
            (value as Record<string, unknown>)[name] === undefined ||
            validate(value, state, evaluated),
        );
      }
    }
  }

  private conditional(schema: SchemaObject, condition: Schema): Validator {
    const test = this.validatorOf(condition);
    const then = schema.then;
    const otherwise = schema.else;
    const thenCheck =
      typeof then === 'boolean' || isSchemaObject(then) ? this.validatorOf(then) : alwaysValid;
    const elseCheck =
      typeof otherwise === 'boolean' || isSchemaObject(otherwise)
        ? this.validatorOf(otherwise)
        : alwaysValid;
    return (value, state, evaluated) => {
      const own = evaluated === undefined ? undefined : newEvaluated();
      const holds = attempt(state, test, value, own);
      if (state.exhausted) return false;
      if (holds && evaluated !== undefined && own !== undefined) mergeEvaluated(evaluated, own);
      return (holds ? thenCheck : elseCheck)(value, state, evaluated);
    };
  }
}

function anyOfCheck(branches: Validator[]): Validator {
  return (value, state, evaluated) => {
    let matched = false;
    for (const branch of branches) {
      const own = evaluated === undefined ? undefined : newEvaluated();
      if (attempt(state, branch, value, own)) {
        matched = true;
        if (evaluated === undefined) return true;
        mergeEvaluated(evaluated, own as Evaluated);
      }
      if (state.exhausted) return false;
    }
    return matched || fail(state, 'must match a schema in "anyOf"');
  };
}

function oneOfCheck(branches: Validator[]): Validator {
  return (value, state, evaluated) => {
    let matches = 0;
    let matchedEvaluated: Evaluated | undefined;
    for (const branch of branches) {
      const own = evaluated === undefined ? undefined : newEvaluated();
      if (attempt(state, branch, value, own)) {
        matches++;
        matchedEvaluated = own;
        if (matches > 1) break;
      }
      if (state.exhausted) return false;
    }
    if (matches === 1) {
      if (evaluated !== undefined && matchedEvaluated !== undefined) {
        mergeEvaluated(evaluated, matchedEvaluated);
      }
      return true;
    }
    return fail(
      state,
      matches === 0
        ? 'must match a schema in "oneOf"'
        : 'must match exactly one schema in "oneOf" (it matches more than one)',
    );
  };
}
