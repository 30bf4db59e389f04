import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../json-schema.js';
import { createSchemaCompiler, schemaLimits } from './index.js';

const ids: JsonSchema = {
  type: 'object',
  properties: { ids: { type: 'array', items: { type: 'string', pattern: '^id-[0-9]+$' } } },
};

/** 20 000 ids of 43 characters: about 0.9 MB of JSON. */
function manyIds(count = 20_000): { ids: string[] } {
  return {
    ids: Array.from({ length: count }, (_, index) => `id-${String(index).padStart(40, '0')}`),
  };
}

/** A valid number item is first tried against 9 800 subschemas (under the expansion limit). */
const fanOut: JsonSchema = {
  type: 'array',
  items: {
    anyOf: [
      ...Array.from({ length: 98 }, () => ({
        anyOf: Array.from({ length: 100 }, () => ({ type: 'string' as const })),
      })),
      { type: 'number' },
    ],
  },
};

describe('the validation budget grows with the size of the value', () => {
  it('validates 20 000 ids under a pattern (~0.9 MB), and finds a bad one among them', () => {
    const value = manyIds();
    expect(JSON.stringify(value).length).toBeGreaterThan(900_000);
    const check = createSchemaCompiler({ valueName: 'arguments' }).compile(ids, 'ids');
    expect(check(value)).toBeUndefined();
    value.ids[19_999] = 'id-x';
    expect(check(value)).toMatch(/arguments\.ids\[19999\] must match pattern/);
  });

  it('lets linear work through at any size: five times the value, five times the budget', () => {
    const check = createSchemaCompiler().compile(ids, 'ids');
    expect(check(manyIds(100_000))).toBeUndefined();
  });

  it('still cuts work far above the per-byte cap, at any size, naming the budget', () => {
    const check = createSchemaCompiler().compile(fanOut, 'fan_out');
    expect(check([0, 1, 2])).toBeUndefined();
    const small = check(new Array(500).fill(0));
    expect(small).toMatch(
      new RegExp(`within ${schemaLimits.maxValidationSteps} steps \\(the validation budget`),
    );
    const large = check(new Array(200_000).fill(0));
    expect(large).toMatch(/too large or too complex to validate within \d+ steps/);
    expect(large).toMatch(/32 steps per character/);
  });

  it('refuses a value larger than maxValueSize before validating it', () => {
    const check = createSchemaCompiler({ maxValueSize: 1000 }).compile({}, 'any');
    expect(check('x'.repeat(900))).toBeUndefined();
    expect(check({ text: 'x'.repeat(1000) })).toMatch(/larger than 1000 characters/);
    // A value that shares its parts is as large as the JSON it stands for.
    let shared: unknown[] = [];
    for (let level = 0; level < 60; level++) shared = [shared, shared];
    expect(createSchemaCompiler().compile({}, 'any')(shared)).toMatch(/larger than/);
  });
});
