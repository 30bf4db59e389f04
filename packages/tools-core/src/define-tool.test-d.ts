import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { awaitInput } from './await-input.js';
import type { BaseTool } from './base-tool.js';
import { type AnyTool, defineTool } from './define-tool.js';
import type { JsonValue } from './json.js';
import type { FromJsonSchema } from './json-schema.js';
import type { ToolInputAnswer } from './tool-context.js';

describe('argument inference', () => {
  it('infers required, optional, enum, array and nested properties from a JSON Schema', () => {
    defineTool({
      name: 'search',
      description: 'd',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer' },
          mode: { enum: ['fast', 'deep'] },
          tags: { type: 'array', items: { type: 'string' } },
          filter: {
            type: 'object',
            properties: { year: { type: ['number', 'null'] } },
            required: ['year'],
          },
        },
        required: ['query', 'mode'],
      },
      execute: async (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          query: string;
          mode: 'fast' | 'deep';
          limit?: number;
          tags?: string[];
          filter?: { year: number | null };
        }>();
        return null;
      },
    });
  });

  it('infers from a zod schema (its output type)', () => {
    defineTool({
      name: 'z',
      description: 'd',
      parameters: z.object({ n: z.number(), s: z.string().optional() }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ n: number; s?: string | undefined }>();
        return args.n;
      },
    });
  });

  it('falls back to JsonValue for schemas it cannot read', () => {
    expectTypeOf<FromJsonSchema<{ not: { type: 'string' } }>>().toEqualTypeOf<JsonValue>();
  });

  it('lets tools of any argument type be stored together', () => {
    const typed = defineTool({
      name: 't',
      description: 'd',
      parameters: { type: 'object', properties: { a: { type: 'string' } } },
      execute: () => 1,
    });
    expectTypeOf(typed).toMatchTypeOf<AnyTool>();
    const list: AnyTool[] = [typed];
    expectTypeOf(list).toEqualTypeOf<AnyTool[]>();
    expectTypeOf<BaseTool>().toMatchTypeOf<AnyTool>();
  });

  it('refuses a result that is not JSON', () => {
    defineTool({
      name: 'bad',
      description: 'd',
      parameters: { type: 'object' },
      // @ts-expect-error a function is not JSON
      execute: () => () => 1,
    });
  });
});

describe('approval and ask-back types', () => {
  it('types needsApproval arguments like execute and lets execute return awaitInput()', () => {
    const tool = defineTool({
      name: 'transfer',
      description: 'd',
      parameters: {
        type: 'object',
        properties: { amount: { type: 'number' } },
        required: ['amount'],
      },
      needsApproval: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ amount: number }>();
        return args.amount > 100;
      },
      execute: async ({ amount }, context) => {
        expectTypeOf(context.input).toEqualTypeOf<ToolInputAnswer | undefined>();
        if (context.input === undefined) return awaitInput({ prompt: `Send ${amount}?` });
        return { sent: amount };
      },
    });
    expectTypeOf(tool).toExtend<AnyTool>();
    expectTypeOf(tool).toExtend<BaseTool<{ amount: number }, JsonValue>>();
  });
});
