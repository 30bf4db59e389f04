import { describe, expect, it } from 'vitest';
import { checkRequiredPermissions, isPermission, Permission } from './permission.js';
import { ToolError } from './tool-error.js';

describe('Permission', () => {
  it('exposes the built-ins as plain strings', () => {
    expect([
      Permission.Read,
      Permission.Write,
      Permission.Delete,
      Permission.Network,
      Permission.Shell,
      Permission.FileSystem,
    ]).toEqual(['read', 'write', 'delete', 'network', 'shell', 'filesystem']);
  });

  it('makes custom permissions that compare equal with === and never collide with built-ins', () => {
    expect(Permission.custom('billing:refund')).toBe(Permission.custom('billing:refund'));
    expect(Permission.custom('read')).not.toBe(Permission.Read);
    expect(JSON.parse(JSON.stringify([Permission.custom('db.write')]))).toEqual([
      'custom:db.write',
    ]);
  });

  it('refuses empty or odd custom names with a message saying what is allowed', () => {
    expect(() => Permission.custom('')).toThrow(TypeError);
    expect(() => Permission.custom('has space')).toThrow(/letters, digits/);
  });

  it('recognises permissions', () => {
    expect(isPermission('read')).toBe(true);
    expect(isPermission('custom:x.y')).toBe(true);
    expect(isPermission('custom:')).toBe(false);
    expect(isPermission('root')).toBe(false);
    expect(isPermission(3)).toBe(false);
  });
});

describe('checkRequiredPermissions', () => {
  it('returns a frozen copy of an array of permissions', () => {
    const declared: Permission[] = ['read', Permission.custom('db:query')];
    const copy = checkRequiredPermissions('t', declared);
    declared.length = 0;
    expect(copy).toEqual(['read', 'custom:db:query']);
    expect(Object.isFrozen(copy)).toBe(true);
    expect(checkRequiredPermissions('t', undefined)).toEqual([]);
  });

  it('refuses anything else with a ToolError naming the tool and the value', () => {
    for (const [bad, words] of [
      ['shell', '"shell" is not an array'],
      [['Shell'], '"Shell" (at index 0) is not a permission'],
      [['read', 'SHELL'], '"SHELL" (at index 1) is not a permission'],
      [['shell '], '"shell " (at index 0) is not a permission'],
      [[42], '42 (at index 0) is not a permission'],
      [{ 0: 'read', length: 1 }, 'is not an array'],
    ] as const) {
      let error: unknown;
      try {
        checkRequiredPermissions('danger', bad);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).toolName).toBe('danger');
      expect((error as ToolError).message).toContain(words);
    }
  });
});
