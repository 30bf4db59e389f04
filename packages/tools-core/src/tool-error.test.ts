import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ToolError, type ToolErrorCode, toolErrorCodes } from './tool-error.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('ToolError', () => {
  it('classifies every code as the design table says', () => {
    const recoverable = toolErrorCodes.filter((code) => new ToolError(code, 'x').isRecoverable());
    expect(recoverable.sort()).toEqual([
      'denied',
      'execution_failed',
      'invalid_arguments',
      'loop_detected',
      'other',
      'timeout',
    ]);
    const fatal: ToolErrorCode[] = [
      'not_found',
      'permission_denied',
      'mcp_error',
      'mcp_not_initialized',
      'mcp_timeout',
      'io',
      'cancelled',
      'auth_required',
      'auth_failed',
    ];
    for (const code of fatal) expect(new ToolError(code, 'x').isRecoverable()).toBe(false);
    expect(toolErrorCodes).toHaveLength(15);
  });

  it('keeps code, toolName and the standard cause', () => {
    const cause = new RangeError('boom');
    const error = new ToolError('execution_failed', "Tool 'calc' failed", {
      toolName: 'calc',
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolError');
    expect(error.code).toBe('execution_failed');
    expect(error.toolName).toBe('calc');
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'ToolError',
      code: 'execution_failed',
      message: "Tool 'calc' failed",
      toolName: 'calc',
      recoverable: true,
    });
  });

  it('from() keeps a ToolError and wraps anything else as execution_failed', () => {
    const original = new ToolError('io', 'disk');
    expect(ToolError.from(original, 'x')).toBe(original);
    const wrapped = ToolError.from(new Error('kaput'), 'reader');
    expect(wrapped.code).toBe('execution_failed');
    expect(wrapped.message).toContain("Tool 'reader' failed: kaput");
    expect(ToolError.from({ weird: 1 }).message).toContain('{"weird":1}');
  });

  it('is not confused with other errors, and subclasses keep the normal instanceof rule', () => {
    expect(ToolError.isInstance(new Error('x'))).toBe(false);
    expect(new Error('x') instanceof ToolError).toBe(false);
    expect(ToolError.isInstance(null)).toBe(false);
    class SpecialError extends ToolError {}
    const special = new SpecialError('other', 'x');
    expect(special instanceof ToolError).toBe(true);
    expect(special instanceof SpecialError).toBe(true);
    expect(new ToolError('other', 'y') instanceof SpecialError).toBe(false);
  });

  it('instanceof and isInstance hold across two copies of the built package', async () => {
    // A second copy, as a second version in node_modules would be.
    const copy = mkdtempSync(join(tmpdir(), 'agcore-copy-'));
    try {
      cpSync(join(packageDir, 'src'), join(copy, 'src'), { recursive: true });
      const first = await import(pathToFileURL(join(packageDir, 'src', 'tool-error.ts')).href);
      const second = await import(`${pathToFileURL(join(copy, 'src', 'tool-error.ts')).href}?copy`);
      expect(second.ToolError).not.toBe(first.ToolError);
      const fromSecond = new second.ToolError('timeout', 'late');
      const fromFirst = new first.ToolError('timeout', 'late');
      expect(fromSecond instanceof first.ToolError).toBe(true);
      expect(fromFirst instanceof second.ToolError).toBe(true);
      expect(first.ToolError.isInstance(fromSecond)).toBe(true);
      expect(second.ToolError.isInstance(fromFirst)).toBe(true);
      expect(fromSecond.isRecoverable()).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('ToolError.from never throws', () => {
  const hostile: [string, unknown][] = [
    [
      'a proxy whose traps all throw',
      new Proxy(
        {},
        Object.fromEntries(
          ['get', 'getPrototypeOf', 'ownKeys', 'has', 'getOwnPropertyDescriptor'].map((trap) => [
            trap,
            () => {
              throw new Error(`trap ${trap}`);
            },
          ]),
        ),
      ),
    ],
    [
      'a null-prototype object whose toJSON throws',
      Object.assign(Object.create(null), {
        toJSON() {
          throw new Error('toJSON');
        },
      }),
    ],
    [
      'an Error whose message getter throws',
      Object.defineProperty(new Error('x'), 'message', {
        get() {
          throw new Error('message');
        },
      }),
    ],
    [
      'an object whose Symbol.toPrimitive throws',
      {
        [Symbol.toPrimitive]() {
          throw new Error('p');
        },
        toJSON() {
          throw new Error('j');
        },
      },
    ],
    ['a symbol', Symbol('s')],
    ['undefined', undefined],
  ];
  for (const [what, value] of hostile) {
    it(`turns ${what} into execution_failed with the value as cause`, () => {
      const error = ToolError.from(value, 'hostile');
      expect(error.code).toBe('execution_failed');
      expect(error.message).toMatch(/^Tool 'hostile' failed: /);
      expect(error.cause).toBe(value);
      expect(ToolError.isInstance(value)).toBe(false);
    });
  }
});
