import { describe, expect, it } from 'vitest';
import { PlaygroundError } from './playground-error.js';
import { allowForFlow, buildPolicy, parsePermissionList } from './policy.js';

describe('--allow / --deny', () => {
  it('starts from the default policy; --allow lifts a denial, --deny wins', () => {
    expect(buildPolicy([], [])).toEqual({
      allowed: ['read', 'network'],
      denied: ['delete', 'shell'],
      allowUnspecified: true,
    });
    expect(buildPolicy(['write', 'shell'], [])).toEqual({
      allowed: ['read', 'network', 'write', 'shell'],
      denied: ['delete'],
      allowUnspecified: true,
    });
    expect(buildPolicy(['write'], ['write', 'network'])).toEqual({
      allowed: ['read'],
      denied: ['delete', 'shell', 'write', 'network'],
      allowUnspecified: true,
    });
  });

  it('parses comma-separated and repeated values, refusing unknown names', () => {
    expect(parsePermissionList(['write,delete', 'custom:billing'], '--allow')).toEqual([
      'write',
      'delete',
      'custom:billing',
    ]);
    expect(() => parsePermissionList(['root'], '--allow')).toThrow(PlaygroundError);
  });
});

describe('a flow that allows a permission', () => {
  it('lifts the default denial, but never what --deny named', () => {
    expect(allowForFlow(buildPolicy([], []), ['delete'], [])).toEqual({
      allowed: ['read', 'network', 'delete'],
      denied: ['shell'],
      allowUnspecified: true,
    });
    const denied = buildPolicy([], ['delete']);
    expect(allowForFlow(denied, ['delete'], ['delete'])).toEqual(denied);
  });
});
