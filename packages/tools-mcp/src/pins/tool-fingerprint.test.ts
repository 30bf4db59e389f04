import { canonicalJson } from '@agcore/tools-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { permissionListProblem, resolvePermissions } from '../tool-permissions.js';
import { toolFingerprint } from './tool-fingerprint.js';

/** Shuffles the keys of every object in a JSON value, deterministically from `seed`. */
function reorder(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => reorder(item, seed + index));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const shuffled = keys
    .map((key, index) => ({ key, order: (index * 7919 + seed * 104729) % (keys.length + 13) }))
    .sort((a, b) => a.order - b.order);
  const result: Record<string, unknown> = Object.create(null);
  for (const { key } of shuffled)
    result[key] = reorder((value as Record<string, unknown>)[key], seed + 1);
  return result;
}

describe('canonicalJson', () => {
  it('is JSON that reads back to the same value, whatever the order of the keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 1000 }), (value, seed) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reorder(value, seed))).toBe(text);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('writes a schema nested 100 000 levels deep without overflowing the stack', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let index = 0; index < 100_000; index++)
      schema = { type: 'object', properties: { x: schema } };
    expect(canonicalJson(schema).length).toBeGreaterThan(3_000_000);
    expect(toolFingerprint({ name: 'deep', inputSchema: schema as never })).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });
});

describe('permission overrides (property)', () => {
  const permission = fc.constantFrom(
    'read',
    'write',
    'delete',
    'network',
    'shell',
    'filesystem',
    'custom:crm',
  );
  it('accepts exactly the non-empty lists of permissions, and an accepted list is what the tool requires', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(permission, { maxLength: 4 }),
          fc.array(fc.oneof(permission, fc.jsonValue()), { maxLength: 4 }),
          fc.jsonValue(),
        ),
        (list) => {
          const valid =
            Array.isArray(list) &&
            list.length > 0 &&
            list.every(
              (item) =>
                typeof item === 'string' &&
                /^(read|write|delete|network|shell|filesystem|custom:crm)$/.test(item),
            );
          expect(permissionListProblem(list) === undefined).toBe(valid);
          if (valid) {
            expect(resolvePermissions('t', { readOnlyHint: true }, { t: list as never })).toEqual(
              list,
            );
          }
        },
      ),
      { seed: 7, numRuns: 500 },
    );
    const sparse: unknown[] = [];
    sparse[1] = 'read'; // a hole at 0, as `[, 'read']` makes
    expect(permissionListProblem(sparse)).toMatch(/undefined, which is not a permission/);
  });
});
