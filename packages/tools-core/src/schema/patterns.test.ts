import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JsonSchema } from '../json-schema.js';
import { ToolError } from '../tool-error.js';
import { createSchemaCompiler, schemaLimits } from './index.js';

/** The JSON Schema zod 4 makes for the formats that emit lookahead. */
function zodSchema(): JsonSchema {
  return z.toJSONSchema(
    z.object({ host: z.hostname(), period: z.iso.duration(), mood: z.emoji() }),
  ) as JsonSchema;
}

const good = { host: 'api.example.com', period: 'P1DT2H', mood: '🙂' };
const badValues = [
  { ...good, host: '-bad-.example.com' },
  { ...good, period: 'P' },
  { ...good, mood: 'smile' },
];

function refusal(compile: () => unknown): ToolError {
  try {
    compile();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected the schema to be refused');
}

describe('patterns the linear engine cannot run: trusted schemas', () => {
  it('compiles zod 4 hostname, duration and emoji, and checks good and bad values', () => {
    const check = createSchemaCompiler({ valueName: 'arguments' }).compile(zodSchema(), 'zod');
    expect(check(good)).toBeUndefined();
    for (const value of badValues) expect(check(value), JSON.stringify(value)).toMatch(/pattern/);
  });

  it('checks lookbehind and backreferences with the platform RegExp', () => {
    const compiler = createSchemaCompiler();
    const price = compiler.compile({ type: 'string', pattern: '(?<=\\$)\\d+$' }, 'price');
    expect(price('cost $12')).toBeUndefined();
    expect(price('cost 12')).toMatch(/must match pattern/);
    const doubled = compiler.compile({ type: 'string', pattern: '^(\\w+) \\1$' }, 'doubled');
    expect(doubled('bye bye')).toBeUndefined();
    expect(doubled('bye now')).toMatch(/must match pattern/);
    const keys = compiler.compile(
      { type: 'object', patternProperties: { '^(?!x-)': { type: 'number' } } },
      'keys',
    );
    expect(keys({ a: 1, 'x-a': 'free' })).toBeUndefined();
    expect(keys({ a: 'no' })).toMatch(/value\.a must be number/);
  });

  it('refuses inputs longer than the bound with a failure naming it, without running RegExp', () => {
    const bound = schemaLimits.maxNativePatternInputLength;
    const check = createSchemaCompiler().compile(
      { type: 'string', pattern: '^(?=a)(a|a)*$' },
      'catastrophic',
    );
    expect(check('a'.repeat(20))).toBeUndefined();
    const long = check(`${'a'.repeat(bound)}!`);
    expect(long).toMatch(new RegExp(`longer than ${bound} characters`));
    expect(long).toMatch(/maxNativePatternInputLength/);
    const small = createSchemaCompiler({ maxNativePatternInputLength: 8 }).compile(
      { type: 'string', pattern: '^(?!x)' },
      'small',
    );
    expect(small('12345678')).toBeUndefined();
    expect(small('123456789')).toMatch(/longer than 8 characters/);
  });

  it('refuses in one linear pass what the pattern without its lookaround refuses', () => {
    const check = createSchemaCompiler().compile(
      { type: 'string', pattern: '^(?=a)(a+)+$' },
      'catastrophic',
    );
    // Backtracking RegExp: ~2^5000 steps. The relaxed ^(a+)+$ refuses it on the linear engine.
    expect(check(`${'a'.repeat(5000)}!`)).toMatch(/must match pattern/);
    expect(check('a'.repeat(5000))).toBeUndefined();
    const named = createSchemaCompiler().compile(
      { type: 'string', pattern: '^(?<word>[a-z]+)-\\k<word>$' },
      'named',
    );
    expect(named('ab-ab')).toBeUndefined();
    expect(named('ab-cd')).toMatch(/must match pattern/);
    expect(named('AB-AB')).toMatch(/must match pattern/);
  });

  it('refuses a pattern RegExp rejects, naming it, without suggesting a limit', () => {
    const error = refusal(() => createSchemaCompiler().compile({ pattern: '(?<=a' }, 'broken'));
    expect(error.code).toBe('other');
    expect(error.message).toContain('pattern "(?<=a"');
    expect(error.message).toMatch(/not a valid regular expression/);
    expect(error.message).not.toMatch(/raise|limit/i);
    expect(
      refusal(() => createSchemaCompiler({ trust: 'untrusted' }).compile({ pattern: '\\-' }, 'x'))
        .message,
    ).toMatch(/pattern "\\\\-".*not a valid regular expression/);
  });

  it('keeps ^(a+)+$ on the linear engine for trusted and untrusted schemas alike', () => {
    for (const trust of ['trusted', 'untrusted'] as const) {
      const warnings: string[] = [];
      const check = createSchemaCompiler({ trust, onWarning: (m) => warnings.push(m) }).compile(
        { type: 'string', pattern: '^(a+)+$' },
        'redos',
      );
      // Far above the native bound: only the linear engine checks this length.
      expect(check(`${'a'.repeat(50_000)}!`)).toMatch(/must match pattern/);
      expect(check('a'.repeat(50_000))).toBeUndefined();
      expect(warnings).toEqual([]);
    }
  });
});

describe('patterns the linear engine cannot run: untrusted schemas', () => {
  it('registers zod 4 schemas with one warning per pattern; the patterns are not checked', () => {
    const warnings: string[] = [];
    const compiler = createSchemaCompiler({
      trust: 'untrusted',
      onWarning: (message) => warnings.push(message),
    });
    const check = compiler.compile(zodSchema(), 'remote');
    compiler.compile(zodSchema(), 'remote');
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/tool 'remote'/);
    expect(warnings[0]).toMatch(/not checked/);
    expect(check(good)).toBeUndefined();
    // The patterns are not checked; the formats and the other keywords still are.
    for (const value of badValues) expect(check(value) ?? '').not.toMatch(/pattern/);
    expect(check(badValues[2])).toBeUndefined();
    expect(check({ ...good, host: 5 })).toMatch(/value\.host must be string/);
  });

  it('leaves lookbehind and backreference patterns unchecked, per compile too', () => {
    const warnings: string[] = [];
    const compiler = createSchemaCompiler({ onWarning: (message) => warnings.push(message) });
    const schema: JsonSchema = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '(?<=\\$)\\d+$' } },
      patternProperties: { '^(x)\\1$': { type: 'number' } },
      additionalProperties: false,
    };
    const untrusted = compiler.compile(schema, 'mcp', { trust: 'untrusted' });
    expect(untrusted({ a: 'no dollar', xx: 'free', other: 1 })).toBeUndefined();
    expect(warnings).toHaveLength(2);
    const trusted = compiler.compile(schema, 'local');
    expect(trusted({ a: 'no dollar' })).toMatch(/must match pattern/);
    expect(trusted({ xx: 'text' })).toMatch(/value\.xx must be number/);
    expect(trusted({ other: 1 })).toMatch(/must not have property 'other'/);
  });

  it('survives a warning handler that throws', () => {
    const compiler = createSchemaCompiler({
      trust: 'untrusted',
      onWarning: () => {
        throw new Error('listener broke');
      },
    });
    expect(compiler.compile({ pattern: 'a(?=b)' }, 't')('zzz')).toBeUndefined();
  });

  it('refuses a bad trust option with a TypeError naming it', () => {
    expect(() => createSchemaCompiler({ trust: 'maybe' as unknown as 'trusted' })).toThrow(
      /SchemaCompilerOptions\.trust/,
    );
    expect(() =>
      createSchemaCompiler().compile({}, 't', { trust: 'maybe' as unknown as 'trusted' }),
    ).toThrow(/trust/);
  });
});
