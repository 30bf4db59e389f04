/**
 * What one validation carries: its remaining work budget, where it is in the value, and the
 * errors found so far (none are kept inside `anyOf`, `oneOf`, `not`, `if` and `contains`, whose
 * failures are not the value's problems).
 */
export interface State {
  /** Work left; each subschema application and each regex step costs one. */
  steps: number;
  /** The problems found, or `undefined` while trying an alternative. */
  errors: string[] | undefined;
  /** Set when the budget ran out (the value is refused). */
  exhausted: boolean;
  /** Keys and indexes from the root of the value to where the validation is. */
  readonly path: (string | number)[];
  readonly maxErrors: number;
  readonly valueName: string;
}

/**
 * What a schema evaluated of an object or array, for `unevaluatedProperties` and
 * `unevaluatedItems` (JSON Schema 2019-09 and later).
 */
export interface Evaluated {
  properties: Set<string>;
  /** Items `0 .. items - 1` were evaluated (`Infinity`: all). */
  items: number;
  /** Other evaluated indexes (those `contains` matched). */
  itemIndexes: Set<number>;
}

/** A compiled schema: `true` when `value` is valid; records problems in `state`. */
export type Validator = (value: unknown, state: State, evaluated: Evaluated | undefined) => boolean;

/** Makes an empty `Evaluated`. */
export function newEvaluated(): Evaluated {
  return { properties: new Set(), items: 0, itemIndexes: new Set() };
}

/** Adds what `from` evaluated to `into`. */
export function mergeEvaluated(into: Evaluated, from: Evaluated): void {
  for (const key of from.properties) into.properties.add(key);
  if (from.items > into.items) into.items = from.items;
  for (const index of from.itemIndexes) into.itemIndexes.add(index);
}

/**
 * Records a problem at the current path (unless trying an alternative) and returns `false`.
 */
export function fail(state: State, message: string): false {
  const { errors } = state;
  if (errors !== undefined && errors.length < state.maxErrors) {
    errors.push(`${describePath(state)} ${message}`);
  }
  return false;
}

/** Whether to look for more problems after one was found. */
export function goOn(state: State): boolean {
  return state.errors !== undefined && state.errors.length < state.maxErrors && !state.exhausted;
}

/** Marks the budget as spent and returns `false`. */
export function exhaust(state: State): false {
  state.exhausted = true;
  return false;
}

/** Runs `validate` on an alternative: no errors recorded, the state restored after. */
export function attempt(
  state: State,
  validate: Validator,
  value: unknown,
  evaluated: Evaluated | undefined,
): boolean {
  const errors = state.errors;
  state.errors = undefined;
  const valid = validate(value, state, evaluated);
  state.errors = errors;
  return valid && !state.exhausted;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function describePath(state: State): string {
  let text = state.valueName;
  for (const segment of state.path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (identifier.test(segment)) text += `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}
