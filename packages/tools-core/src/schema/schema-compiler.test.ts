import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../json-schema.js';
import { ToolError } from '../tool-error.js';
import { createSchemaCompiler, schemaLimits } from './index.js';

const compiler = () => createSchemaCompiler({ valueName: 'arguments' });

function refusal(compile: () => unknown): ToolError {
  try {
    compile();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected the schema to be refused');
}

/** Twenty definitions, each an anyOf of two $refs to the next: 2^20 paths. */
function chainedAnyOf(length: number): JsonSchema {
  const definitions: Record<string, JsonSchema> = { [`d${length}`]: { type: 'string' } };
  for (let index = 0; index < length; index++) {
    definitions[`d${index}`] = {
      anyOf: [{ $ref: `#/definitions/d${index + 1}` }, { $ref: `#/definitions/d${index + 1}` }],
    };
  }
  return { definitions, $ref: '#/definitions/d0' };
}

describe('schema compiler: meaning (against ajv as the oracle)', () => {
  const leaf = fc.oneof(
    fc.constant({}),
    fc
      .constantFrom('string', 'number', 'integer', 'boolean', 'null', 'array', 'object')
      .map((type) => ({ type })),
    fc.constant({ type: ['string', 'null'] }),
    fc.integer({ min: -3, max: 3 }).map((minimum) => ({ minimum })),
    fc.integer({ min: -3, max: 3 }).map((exclusiveMaximum) => ({ exclusiveMaximum })),
    fc.integer({ min: 1, max: 3 }).map((multipleOf) => ({ multipleOf })),
    fc.integer({ min: 0, max: 3 }).map((minLength) => ({ minLength })),
    fc.integer({ min: 0, max: 3 }).map((maxLength) => ({ maxLength })),
    fc.constantFrom('^a', 'b$', '^[a-c]*$', '\\d').map((pattern) => ({ pattern })),
    fc.constant({ enum: [1, 'a', null, [1], { a: 1 }] }),
    fc.constant({ const: { a: 1 } }),
    fc.integer({ min: 0, max: 2 }).map((minItems) => ({ minItems })),
    fc.integer({ min: 0, max: 2 }).map((maxProperties) => ({ maxProperties })),
    fc.constant({ uniqueItems: true }),
    fc.constant({ required: ['a'] }),
    fc.constant({ dependencies: { a: ['b'] } }),
    fc.constant(true),
    fc.constant(false),
  );
  const { schema } = fc.letrec((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record(
        {
          properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('schema'), { maxKeys: 2 }),
          additionalProperties: tie('schema'),
          patternProperties: fc.dictionary(fc.constantFrom('^a', 'c'), tie('schema'), {
            maxKeys: 1,
          }),
          propertyNames: fc.constant({ maxLength: 1 }),
        },
        { requiredKeys: [] },
      ),
      fc.record({ items: tie('schema'), contains: tie('schema') }, { requiredKeys: [] }),
      fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
      fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((allOf) => ({ allOf })),
      fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((oneOf) => ({ oneOf })),
      tie('schema').map((not) => ({ not })),
      fc.record(
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords.
        { if: tie('schema'), then: tie('schema'), else: tie('schema') },
        { requiredKeys: ['if'] },
      ),
    ),
  }));
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, 0, 1, 2, 1.5, -3, 'a', 'b', 'ab', 'abc', 'c1', ''),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'ab'), tie('value'), { maxKeys: 3 }),
    ),
  })).value;

  it('accepts and refuses exactly what ajv does (draft-07)', () => {
    const ajv = new Ajv({ strict: false, logger: false });
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 5 }), (generated, values) => {
        const expected = ajv.compile(generated as object);
        const check = compiler().compile(generated as JsonSchema, 'generated');
        for (const item of values) {
          expect(check(item) === undefined, JSON.stringify({ generated, item })).toBe(
            expected(item),
          );
        }
      }),
      { seed: 20260901, numRuns: 600 },
    );
  }, 60_000);

  it('reports problems in one line, at most maxErrors, with the path', () => {
    const check = createSchemaCompiler({ valueName: 'arguments', maxErrors: 2 }).compile(
      {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' }, x: { type: 'null' } },
        required: ['city'],
      },
      'weather',
    );
    expect(check({ city: 'Paris' })).toBeUndefined();
    expect(check({ city: 3 })).toBe('arguments.city must be string');
    const many = check({ city: 1, days: 1.5, x: 1 }) as string;
    expect(many).toBe(
      'arguments.city must be string; arguments.days must be integer (and maybe more)',
    );
    expect(check({ 'odd\nkey': 1, city: 2 })).not.toMatch(/\n/);
  });

  it('supports 2020-12: prefixItems, $defs, $anchor, unevaluatedProperties/Items, dependentRequired', () => {
    const check = compiler().compile(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $defs: { name: { $anchor: 'name', type: 'string' } },
        type: 'object',
        properties: {
          pair: { prefixItems: [{ $ref: '#name' }, { type: 'number' }], unevaluatedItems: false },
        },
        allOf: [{ properties: { a: true } }],
        dependentRequired: { a: ['pair'] },
        unevaluatedProperties: false,
      },
      'modern',
    );
    expect(check({ a: 1, pair: ['x', 1] })).toBeUndefined();
    expect(check({ a: 1, pair: ['x', 1, 2] })).toMatch(/unevaluated item 2/);
    expect(check({ pair: ['x', 1], b: 1 })).toMatch(/unevaluated property 'b'/);
    expect(check({ a: 1 })).toMatch(/must have property 'pair' when property 'a' is present/);
  });
});

describe('schema compiler: each compiler owns its state', () => {
  const withId: JsonSchema = {
    $id: 'https://example.com/weather.json',
    type: 'object',
    properties: { city: { $ref: '#/definitions/city' } },
    definitions: { city: { type: 'string' } },
  };

  it('compiles the same schema with an $id twice, in one compiler and in two', () => {
    const one = compiler();
    expect(one.compile(withId, 'a')({ city: 'x' })).toBeUndefined();
    expect(one.compile(withId, 'b')({ city: 1 })).toMatch(/city must be string/);
    expect(compiler().compile(withId, 'a')({ city: 'x' })).toBeUndefined();
  });

  it("never resolves a $ref from another schema's $id, and never fetches one", () => {
    const one = compiler();
    one.compile(withId, 'first');
    const stranger = refusal(() =>
      one.compile({ $ref: 'https://example.com/weather.json' }, 'second'),
    );
    expect(stranger.toolName).toBe('second');
    expect(stranger.message).toMatch(/does not point inside the schema.*never fetched/);
    expect(refusal(() => one.compile({ $ref: 'other.json#/a' }, 'x')).message).toMatch(
      /other\.json/,
    );
  });

  it('keeps what it compiled when the schema object changes afterwards', () => {
    const schema = { type: 'object' as const, required: ['a'] };
    const check = compiler().compile(schema, 'mutable');
    schema.required.length = 0;
    expect(check({})).toMatch(/required property 'a'/);
  });
});

describe('schema compiler: limits', () => {
  it('runs an exponential pattern in linear time', () => {
    const check = compiler().compile({ type: 'string', pattern: '^(a+)+$' }, 'redos');
    expect(check(`${'a'.repeat(30_000)}!`)).toMatch(/must match pattern/);
    expect(check('aaaa')).toBeUndefined();
  });

  it('refuses 20 chained anyOf/$ref at compile time, naming the tool and the limit', () => {
    const error = refusal(() => compiler().compile(chainedAnyOf(20), 'chain'));
    expect(error.code).toBe('other');
    expect(error.toolName).toBe('chain');
    expect(error.message).toContain(`more than ${schemaLimits.maxExpansion} subschemas`);
    expect(() => compiler().compile(chainedAnyOf(8), 'short')).not.toThrow();
  });

  it('refuses a schema whose every level doubles the work', () => {
    const doubling = { anyOf: [{ items: { $ref: '#' } }, { items: { $ref: '#' } }] };
    expect(refusal(() => compiler().compile(doubling, 'doubling')).message).toMatch(/at depth \d+/);
  });

  it('refuses $ref loops that never go into the value, and accepts recursion that does', () => {
    expect(refusal(() => compiler().compile({ $ref: '#' }, 'loop')).message).toMatch(/never end/);
    expect(
      refusal(() => compiler().compile({ anyOf: [{ type: 'string' }, { $ref: '#' }] }, 'loop'))
        .message,
    ).toMatch(/loops back/);
    const tree = compiler().compile(
      { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } },
      'tree',
    );
    expect(tree({ children: [{ children: [] }] })).toBeUndefined();
  });

  it('refuses schemas above the size and depth limits', () => {
    const big = { enum: Array.from({ length: 60_000 }, (_, index) => index) };
    expect(refusal(() => compiler().compile(big, 'big')).message).toMatch(/schema size limit/);
    let deep: JsonSchema = { type: 'string' };
    for (let index = 0; index < 200; index++) deep = { not: deep };
    expect(refusal(() => compiler().compile(deep, 'deep')).message).toMatch(/schema depth limit/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(refusal(() => compiler().compile(cyclic, 'cyclic')).message).toMatch(/contains itself/);
  });

  it('refuses values deeper than maxValueDepth before validating, and cycles', () => {
    const check = compiler().compile({}, 'any');
    let deep: unknown = 1;
    for (let index = 0; index < 100_000; index++) deep = [deep];
    expect(check(deep)).toMatch(/nested deeper than 128 levels/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(check(cyclic)).toMatch(/refers back to itself/);
  });

  it('stops a validation past its step budget', () => {
    const check = createSchemaCompiler({
      maxValidationSteps: 1000,
      maxValidationStepsPerByte: 1,
    }).compile(
      {
        type: 'array',
        items: {
          anyOf: (['number', 'null', 'boolean', 'object', 'array', 'string'] as const).map(
            (type) => ({
              type,
            }),
          ),
        },
      },
      'list',
    );
    expect(check(new Array(100).fill('x'))).toBeUndefined();
    expect(check(new Array(10_000).fill('x'))).toMatch(/within 40002 steps/);
  });

  it('refuses patterns that are not regular expressions, naming them', () => {
    const error = refusal(() => compiler().compile({ pattern: '(a' }, 'broken'));
    expect(error.message).toMatch(/pattern "\(a" cannot be used: it is not a valid regular/);
  });

  it('refuses bad options with a TypeError naming the option', () => {
    expect(() => createSchemaCompiler({ maxErrors: 0 })).toThrow(/maxErrors must be a number >= 1/);
  });
});

describe('schema compiler: hostile input', () => {
  const trap = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      ownKeys() {
        throw new Error('trap');
      },
    },
  );

  it('never throws from a check, whatever the value', () => {
    const check = compiler().compile(
      { type: 'object', properties: { a: { type: 'string' } } },
      't',
    );
    expect(check(trap)).toMatch(/could not be read: trap/);
    const getter = Object.defineProperty({}, 'a', {
      enumerable: true,
      get() {
        throw Object.create(null);
      },
    });
    expect(check(getter)).toMatch(/could not be read/);
    expect(check(undefined)).toBe('arguments must be object');
    expect(check(10n)).toBe('arguments must be object');
  });

  it('refuses a schema that cannot be read with a ToolError', () => {
    const error = refusal(() => compiler().compile(trap as JsonSchema, 'proxy'));
    expect(error.message).toMatch(/tool 'proxy' was refused: it cannot be compiled \(trap\)/);
  });
});
