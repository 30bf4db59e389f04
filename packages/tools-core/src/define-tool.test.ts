import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toToolDefinition } from './base-tool.js';
import { defineTool } from './define-tool.js';
import { createToolContext } from './tool-context.js';
import { ToolError } from './tool-error.js';

describe('defineTool', () => {
  it('makes a tool from a JSON Schema and runs it', async () => {
    const weather = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { enum: ['C', 'F'] } },
        required: ['city'],
      },
      requiredPermissions: ['network'],
      execute: async ({ city, unit }) => ({ city, temperature: 22, unit: unit ?? 'C' }),
    });
    expect(weather.requiredPermissions).toEqual(['network']);
    expect(await weather.execute({ city: 'Oslo' }, createToolContext())).toEqual({
      city: 'Oslo',
      temperature: 22,
      unit: 'C',
    });
    expect(toToolDefinition(weather)).toEqual({
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: weather.parameters,
      },
    });
  });

  it('accepts a zod 4 schema: JSON Schema for the model, parsing for execute', async () => {
    const tool = defineTool({
      name: 'add',
      description: 'Adds',
      parameters: z.object({ a: z.number(), b: z.number().default(1) }),
      execute: ({ a, b }) => a + b,
    });
    expect(tool.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number', default: 1 } },
      required: ['a'],
    });
    expect(tool.parameters.$schema).toBeUndefined();
    expect(await tool.execute({ a: 2, b: 1 }, createToolContext())).toBe(3);
    expect(await tool.execute({ a: 2 } as { a: number; b: number }, createToolContext())).toBe(3);
    const failure = await tool
      .execute({ a: 'two' } as unknown as { a: number; b: number }, createToolContext())
      .catch((error: unknown) => error);
    expect(ToolError.isInstance(failure)).toBe(true);
    expect((failure as ToolError).code).toBe('invalid_arguments');
    expect((failure as ToolError).message).toMatch(/^Invalid arguments for tool 'add': a: /);
  });

  it('accepts any Standard JSON Schema, even one that cannot validate', async () => {
    const requested: unknown[] = [];
    // What a schema library other than zod (valibot, arktype) hands over: no validate().
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand-made',
        jsonSchema: {
          input: (options: unknown) => {
            requested.push(options);
            return { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
          },
          output: () => ({}),
        },
        types: undefined as unknown as { input: { q: string }; output: { q: string } },
      },
    };
    const tool = defineTool({
      name: 'search',
      description: 'd',
      parameters: schema,
      execute: ({ q }) => q.toUpperCase(),
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
    expect(requested).toEqual([{ target: 'draft-07' }]);
    expect(await tool.execute({ q: 'x' }, createToolContext())).toBe('X');
  });

  it('says which schema libraries work when a Standard Schema has no JSON Schema', () => {
    const validateOnly = {
      '~standard': { version: 1, vendor: 'old-lib', validate: () => ({ value: {} }) },
    };
    expect(() =>
      defineTool({
        name: 'x',
        description: 'd',
        parameters: validateOnly as never,
        execute: () => null,
      }),
    ).toThrow(/\(old-lib\) cannot give its JSON Schema/);
  });

  it('refuses bad names and schemas that are not objects', () => {
    const base = { description: 'd', execute: () => null };
    expect(() =>
      defineTool({ ...base, name: 'has space', parameters: { type: 'object' } }),
    ).toThrow(/tool name "has space" is invalid/);
    expect(() =>
      defineTool({ ...base, name: 'x'.repeat(65), parameters: { type: 'object' } }),
    ).toThrow(TypeError);
    expect(() => defineTool({ ...base, name: 'str', parameters: z.string() })).toThrow(
      /must describe an object/,
    );
  });

  it('refuses requiredPermissions that are not an array of permissions, and keeps a frozen copy', () => {
    const base = { description: 'd', parameters: { type: 'object' }, execute: () => null } as const;
    const asString = { ...base, name: 'sh', requiredPermissions: 'shell' as unknown as ['shell'] };
    expect(() => defineTool(asString)).toThrow(ToolError);
    expect(() => defineTool(asString)).toThrow(/"shell" is not an array/);
    const upper = { ...base, name: 'up', requiredPermissions: ['Shell'] as unknown as ['shell'] };
    expect(() => defineTool(upper)).toThrow(/"Shell" \(at index 0\) is not a permission/);
    const declared: ('read' | 'shell')[] = ['shell'];
    const tool = defineTool({ ...base, name: 'ok', requiredPermissions: declared });
    declared.length = 0;
    expect(tool.requiredPermissions).toEqual(['shell']);
    expect(Object.isFrozen(tool.requiredPermissions)).toBe(true);
  });

  it('turns a synchronous throw of execute into a rejected promise', async () => {
    const tool = defineTool({
      name: 'boom',
      description: 'fails',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('nope');
      },
    });
    await expect(tool.execute({}, createToolContext())).rejects.toThrow('nope');
  });
});

describe('defineTool needsApproval', () => {
  it('passes a boolean through and leaves it out when not given', () => {
    const base = {
      name: 'x',
      description: 'd',
      parameters: { type: 'object', properties: {} },
      execute: async () => null,
    } as const;
    expect(defineTool({ ...base, needsApproval: true }).needsApproval).toBe(true);
    expect('needsApproval' in defineTool(base)).toBe(false);
  });

  it('gives a function the arguments parsed by a Standard Schema; invalid ones are invalid_arguments', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'pay',
      description: 'd',
      parameters: z.object({ amount: z.coerce.number() }),
      needsApproval: (args) => {
        seen.push(args);
        return args.amount > 100;
      },
      execute: async () => null,
    });
    const decide = tool.needsApproval as (args: unknown, context: unknown) => Promise<boolean>;
    await expect(decide({ amount: '500' }, createToolContext())).resolves.toBe(true);
    expect(seen).toEqual([{ amount: 500 }]);
    await expect(decide({ amount: 'lots' }, createToolContext())).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
  });

  it('refuses a needsApproval that is neither a boolean nor a function (TypeError)', () => {
    expect(() =>
      defineTool({
        name: 'x',
        description: 'd',
        parameters: { type: 'object' },
        needsApproval: 'yes' as never,
        execute: async () => null,
      }),
    ).toThrow(/needsApproval/);
  });
});
