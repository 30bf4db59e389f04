import { describe, expect, it } from 'vitest';
import { isPermission, Permission } from './permission.js';

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
