import { describeThrown, ToolError } from './tool-error.js';

/** One of the permissions agcore knows by name. */
export type BuiltinPermission = 'read' | 'write' | 'delete' | 'network' | 'shell' | 'filesystem';

/** A permission defined by an application, made with `Permission.custom(name)`. */
export type CustomPermission = `custom:${string}`;

/**
 * What a tool needs to be allowed to run. Permissions are plain strings, so two
 * permissions that mean the same compare equal with `===` and survive JSON.
 */
export type Permission = BuiltinPermission | CustomPermission;

const customNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/**
 * The built-in permissions, and `custom(name)` for namespaced ones of your own.
 *
 * @example
 * const tool = { ..., requiredPermissions: [Permission.Read, Permission.custom('billing:refund')] };
 */
export const Permission = Object.freeze({
  /** Reading data: files, databases, APIs that change nothing. */
  Read: 'read',
  /** Creating or changing data. */
  Write: 'write',
  /** Deleting data. */
  Delete: 'delete',
  /** Talking to the network. */
  Network: 'network',
  /** Running shell commands. */
  Shell: 'shell',
  /** File-system operations other than reading, writing and deleting (moving, permissions...). */
  FileSystem: 'filesystem',
  /**
   * A namespaced permission of your own, such as `custom('billing:refund')`.
   * Two calls with the same name give equal values.
   *
   * @throws {TypeError} when `name` is empty or has characters other than letters, digits and `. _ : / -`.
   */
  custom(name: string): CustomPermission {
    if (!customNamePattern.test(name)) {
      throw new TypeError(
        `Permission.custom(${JSON.stringify(name)}): a custom permission name must start with a letter or digit and contain only letters, digits and . _ : / - (for example "billing:refund").`,
      );
    }
    return `custom:${name}`;
  },
} as const);

const builtins: ReadonlySet<string> = new Set<BuiltinPermission>([
  'read',
  'write',
  'delete',
  'network',
  'shell',
  'filesystem',
]);

/** Tells whether `value` is a permission: a built-in name or a `custom:` one. Never throws. */
export function isPermission(value: unknown): value is Permission {
  if (typeof value !== 'string') return false;
  return (
    builtins.has(value) || (value.startsWith('custom:') && customNamePattern.test(value.slice(7)))
  );
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : describeThrown(value);
}

/**
 * Checks what a tool declares as `requiredPermissions` and returns a frozen copy of it (an empty
 * one for `undefined`), so that changing the tool's array later changes nothing. Only an array
 * of permissions passes: canonical lower-case built-in names (`'shell'`, never `'Shell'` or
 * `'shell '`) and `custom:` names (compared exactly).
 *
 * @throws {ToolError} `invalid_arguments` naming the tool and the bad value.
 */
export function checkRequiredPermissions(toolName: string, value: unknown): readonly Permission[] {
  if (value === undefined) return Object.freeze([]);
  const fail = (what: string): never => {
    throw new ToolError(
      'invalid_arguments',
      `Tool '${toolName}' declares invalid requiredPermissions: ${what}. Declare an array of permissions: ${[...builtins].map((name) => `'${name}'`).join(', ')} (lower case) or Permission.custom(name).`,
      { toolName },
    );
  };
  if (!Array.isArray(value)) return fail(`${describeValue(value)} is not an array`);
  const copy: Permission[] = [];
  for (let index = 0; index < value.length; index++) {
    const item: unknown = value[index];
    if (!isPermission(item))
      return fail(`${describeValue(item)} (at index ${index}) is not a permission`);
    copy.push(item);
  }
  return Object.freeze(copy);
}
