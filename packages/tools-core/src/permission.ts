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
