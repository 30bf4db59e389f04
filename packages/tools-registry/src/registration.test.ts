import { type AnyTool, type Permission, ToolError } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from './tool-registry.js';

// Issue 9, section 3: permission declarations and tool names are validated, copied and frozen.

function plain(name: string, requiredPermissions?: unknown): AnyTool {
  return {
    name,
    description: 'd',
    parameters: { type: 'object' },
    ...(requiredPermissions === undefined
      ? {}
      : { requiredPermissions: requiredPermissions as Permission[] }),
    execute: async () => 'ran',
  };
}

function refusal(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected register to refuse the tool');
}

const denyList = () =>
  new ToolRegistry().withPermissionChecker(
    new PermissionChecker({ allowed: [], denied: ['shell', 'delete'] }),
  );

describe('register checks requiredPermissions', () => {
  it("refuses 'Shell', 'SHELL' and 'shell ' naming the tool and the value", () => {
    for (const lookAlike of ['Shell', 'SHELL', 'shell ']) {
      const error = refusal(() => denyList().register(plain('sneaky', [lookAlike])));
      expect(error.code).toBe('invalid_arguments');
      expect(error.toolName).toBe('sneaky');
      expect(error.message).toContain(
        `${JSON.stringify(lookAlike)} (at index 0) is not a permission`,
      );
    }
  });

  it('refuses a string instead of an array (no checking it letter by letter)', () => {
    const error = refusal(() => denyList().register(plain('sneaky', 'shell')));
    expect(error.message).toContain('"shell" is not an array');
  });

  it('keeps a frozen copy: emptying the array after register does not lift a denial', async () => {
    const declared: Permission[] = ['shell'];
    const registry = denyList().register(plain('run_shell', declared));
    declared.length = 0;
    const invocation = await registry.invoke('run_shell', {});
    expect(invocation.output.ok ? 'ok' : invocation.output.error.code).toBe('permission_denied');
  });
});

describe('register applies one name rule to every tool', () => {
  it('refuses names outside ^[a-zA-Z0-9_-]{1,64}$, hand-written tools included', () => {
    for (const name of ['dеlete_file', 'has space\n', '', 'x'.repeat(65), 'a.b']) {
      const error = refusal(() => new ToolRegistry().register(plain(name)));
      expect(error.code).toBe('invalid_arguments');
      expect(error.message).toContain(`${JSON.stringify(name)}: a tool name is 1 to 64`);
    }
    expect(() => new ToolRegistry().register(plain('ok_Name-64'))).not.toThrow();
  });
});
