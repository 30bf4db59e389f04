import { Permission, ToolError } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import {
  defaultPermissionConfig,
  PermissionChecker,
  type PermissionConfig,
} from './permission-checker.js';

function denial(run: () => void): ToolError {
  try {
    run();
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a permission_denied ToolError');
}

describe('PermissionChecker', () => {
  it('uses the design defaults: allow read and network, deny delete and shell, allow unspecified', () => {
    const checker = new PermissionChecker();
    expect(checker.config).toEqual(defaultPermissionConfig);
    expect(checker.isAllowed('reader', ['read'])).toBe(true);
    expect(checker.isAllowed('fetcher', ['read', 'network'])).toBe(true);
    expect(checker.isAllowed('rm', ['delete'])).toBe(false);
    expect(checker.isAllowed('sh', ['shell'])).toBe(false);
    // allow-list is non-empty, so an unlisted permission is refused
    expect(checker.isAllowed('writer', ['write'])).toBe(false);
    expect(checker.isAllowed('plain', [])).toBe(true);
  });

  it('allow-list: only listed permissions pass, custom ones included', () => {
    const checker = new PermissionChecker({
      allowed: ['read', Permission.custom('db:query')],
      denied: [],
    });
    expect(checker.isAllowed(['read', Permission.custom('db:query')])).toBe(true);
    expect(checker.isAllowed([Permission.custom('db:drop')])).toBe(false);
    expect(checker.isAllowed(['filesystem'])).toBe(false);
  });

  it('deny-list only: everything not denied passes when allowUnspecified', () => {
    const checker = new PermissionChecker({ allowed: [], denied: ['shell'] });
    expect(checker.isAllowed(['write', 'filesystem', Permission.custom('x')])).toBe(true);
    expect(checker.isAllowed(['write', 'shell'])).toBe(false);
  });

  it('both lists empty: allowUnspecified decides everything', () => {
    const open = new PermissionChecker({ allowed: [], denied: [], allowUnspecified: true });
    const closed = new PermissionChecker({ allowed: [], denied: [], allowUnspecified: false });
    expect(open.isAllowed(['shell', 'delete'])).toBe(true);
    expect(open.isAllowed([])).toBe(true);
    expect(closed.isAllowed(['read'])).toBe(false);
    expect(closed.isAllowed([])).toBe(false);
  });

  it('deny beats allow when a permission is in both lists', () => {
    const checker = new PermissionChecker({ allowed: ['write', 'read'], denied: ['write'] });
    expect(checker.isAllowed(['read'])).toBe(true);
    expect(checker.isAllowed(['write'])).toBe(false);
    expect(checker.refused(['read', 'write'])).toEqual(['write']);
  });

  it('custom permissions compare by name: allowing one does not allow a look-alike', () => {
    const checker = new PermissionChecker({
      allowed: [Permission.custom('billing:read')],
      denied: [Permission.custom('billing:refund')],
    });
    expect(checker.isAllowed([Permission.custom('billing:read')])).toBe(true);
    expect(checker.isAllowed([Permission.custom('billing:refund')])).toBe(false);
    expect(
      checker.isAllowed([Permission.custom('billing:read'), Permission.custom('billing')]),
    ).toBe(false);
    // a custom permission named like a built-in is a different permission
    expect(checker.isAllowed([Permission.custom('read')])).toBe(false);
  });

  it('a tool that declares nothing is allowed iff allowUnspecified, even under an allow-list', () => {
    expect(new PermissionChecker({ allowed: ['read'] }).isAllowed([])).toBe(true);
    const strict = new PermissionChecker({ allowed: ['read'], allowUnspecified: false });
    expect(strict.isAllowed([])).toBe(false);
    const error = denial(() => strict.check('mystery', []));
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain("tool 'mystery' declares no permission");
  });

  it('check() names the tool and every refused permission, and why', () => {
    const checker = new PermissionChecker();
    expect(() => checker.check('reader', ['read'])).not.toThrow();
    const error = denial(() => checker.check('cleanup', ['read', 'delete', 'write', 'shell']));
    expect(error.code).toBe('permission_denied');
    expect(error.toolName).toBe('cleanup');
    expect(error.isRecoverable()).toBe(false);
    expect(error.message).toContain("tool 'cleanup' needs 'delete', 'write', 'shell'");
    expect(error.message).toContain('delete, shell denied');
    expect(error.message).toContain('write not in the allow-list [read, network]');
    expect(error.message).not.toContain("'read'");
  });

  it('fills missing config fields from the defaults and refuses malformed lists', () => {
    const checker = new PermissionChecker({ allowUnspecified: false });
    expect(checker.config.allowed).toEqual(['read', 'network']);
    expect(checker.config.denied).toEqual(['delete', 'shell']);
    expect(() => new PermissionChecker({ allowed: 'read' as unknown as [] })).toThrow(TypeError);
    expect(Object.isFrozen(checker.config.allowed)).toBe(true);
  });
});

describe('PermissionChecker: hostile policies and declarations', () => {
  const denyList = () =>
    new PermissionChecker({ allowed: [], denied: ['shell', 'delete'], allowUnspecified: true });

  it('refuses declarations that are not canonical permissions, even under a deny-list', () => {
    const checker = denyList();
    for (const lookAlike of ['Shell', 'SHELL', 'shell ', 'custom:', '']) {
      expect(checker.isAllowed([lookAlike as Permission]), lookAlike).toBe(false);
    }
    const error = denial(() => checker.check('sneaky', ['Shell' as Permission]));
    expect(error.message).toContain('"Shell" not a permission');
    expect(checker.isAllowed(['read'])).toBe(true);
  });

  it('refuses a declaration that is a string instead of spreading it into letters', () => {
    const checker = denyList();
    const asString = 'shell' as unknown as Permission[];
    expect(checker.isAllowed('sneaky', asString)).toBe(false);
    expect(denial(() => checker.check('sneaky', asString)).message).toContain('not an array');
  });

  it('throws a TypeError naming the field for a config value of the wrong kind', () => {
    const bad = (config: unknown) => () => new PermissionChecker(config as PermissionConfig);
    expect(bad({ allowUnspecified: 'false' })).toThrow(
      /PermissionConfig\.allowUnspecified must be true or false, got "false" \(string\)/,
    );
    expect(bad({ denied: ['SHELL'] })).toThrow(/PermissionConfig\.denied\[0\] is "SHELL"/);
    expect(bad({ allowed: ['read', 42] })).toThrow(/PermissionConfig\.allowed\[1\] is 42/);
    expect(bad({ allowed: 'read' })).toThrow(/PermissionConfig\.allowed must be an array/);
    expect(bad(null)).toThrow(/PermissionConfig must be an object/);
  });

  it('keeps frozen copies of the lists it was given', () => {
    const denied: Permission[] = ['shell'];
    const checker = new PermissionChecker({ allowed: [], denied });
    denied.length = 0;
    expect(checker.isAllowed(['shell'])).toBe(false);
    expect(Object.isFrozen(checker.config.denied)).toBe(true);
  });
});
