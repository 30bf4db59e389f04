import type { JsonObject, JsonValue } from './json.js';

/**
 * A JSON Schema object, as sent to the LLM as a tool's `parameters`. The well-known keys are
 * typed so that `defineTool` can infer argument types; any other keyword is allowed.
 */
export interface JsonSchema {
  readonly type?: JsonSchemaTypeName | readonly JsonSchemaTypeName[];
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly JsonValue[];
  readonly const?: JsonValue;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly description?: string;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly [keyword: string]: unknown;
}

/** The primitive type names of JSON Schema. */
export type JsonSchemaTypeName =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'null'
  | 'array'
  | 'object';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type FromObject<S> = S extends { readonly properties: infer P }
  ? Simplify<
      {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K]>;
      } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K]>;
      }
    >
  : JsonObject;

type FromTypeName<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromJsonSchema<I>[]
            : JsonValue[]
          : T extends 'object'
            ? FromObject<S>
            : JsonValue;

type FromUnion<Members> = Members extends unknown ? FromJsonSchema<Members> : never;

/**
 * The TypeScript type of the values a JSON Schema accepts, for the common keywords
 * (`type`, `properties`, `required`, `items`, `enum`, `const`, `anyOf`, `oneOf`). Schemas it
 * cannot read give `JsonValue`. Write the schema `as const` (or pass it straight to
 * `defineTool`) so that literal types survive.
 */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer A)[] }
      ? FromUnion<A>
      : S extends { readonly oneOf: readonly (infer O)[] }
        ? FromUnion<O>
        : S extends { readonly type: readonly (infer T)[] }
          ? T extends unknown
            ? FromTypeName<T, S>
            : never
          : S extends { readonly type: infer T }
            ? FromTypeName<T, S>
            : S extends { readonly properties: unknown }
              ? FromObject<S>
              : JsonValue;
