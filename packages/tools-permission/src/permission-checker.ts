import { describeThrown, isPermission, type Permission, ToolError } from '@agcore/tools-core';

/**
 * A static permission policy. See `PermissionChecker` for the rules.
 *
 * Defaults (`defaultPermissionConfig`): allowed `[read, network]`, denied `[delete, shell]`,
 * `allowUnspecified: true`.
 */
export interface PermissionConfig {
  /** Permissions that are allowed. When non-empty, it is an allow-list: anything else is refused. */
  readonly allowed: readonly Permission[];
  /** Permissions that are always refused; beats `allowed`. */
  readonly denied: readonly Permission[];
  /**
   * Decides for a tool that declares no permission, and (when `allowed` is empty) for a
   * permission in neither list.
   */
  readonly allowUnspecified: boolean;
}

/** The default policy: allow read and network, deny delete and shell, allow tools that declare nothing. */
export const defaultPermissionConfig: Readonly<PermissionConfig> = Object.freeze({
  allowed: Object.freeze(['read', 'network'] as Permission[]),
  denied: Object.freeze(['delete', 'shell'] as Permission[]),
  allowUnspecified: true,
});

/**
 * Checks a tool's permissions against a `PermissionConfig` before it runs.
 *
 * Rules, for each permission the tool declares (all must pass):
 * 1. in `denied` → refused;
 * 2. else in `allowed` → allowed;
 * 3. else, if `allowed` is non-empty → refused (allow-list);
 * 4. else (`allowed` empty) → `allowUnspecified` decides.
 *
 * A tool that declares no permission is allowed iff `allowUnspecified`. Custom permissions
 * compare by name. A checker is immutable, so one may be shared by many registries.
 */
export class PermissionChecker {
  /** The policy in force (missing fields of the constructor's argument filled from the defaults). */
  readonly config: Readonly<PermissionConfig>;
  private readonly allowedSet: ReadonlySet<Permission>;
  private readonly deniedSet: ReadonlySet<Permission>;

  /**
   * Makes a checker; fields you leave out take the default policy's values. The lists are
   * copied and frozen: changing the arrays you passed changes nothing.
   *
   * @throws {TypeError} naming the field: `allowed` or `denied` not an array of permissions
   * (canonical lower-case built-ins such as `'shell'`, or `Permission.custom(name)`; `'Shell'`
   * and `'shell '` are refused), `allowUnspecified` not a boolean (`'false'` from a config file
   * is refused), or a config that is not an object.
   */
  constructor(config: Partial<PermissionConfig> = {}) {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new TypeError(
        `PermissionConfig must be an object with allowed, denied and allowUnspecified, got ${describeThrown(config)}.`,
      );
    }
    const allowed = readList(config, 'allowed');
    const denied = readList(config, 'denied');
    const allowUnspecified = config.allowUnspecified ?? defaultPermissionConfig.allowUnspecified;
    if (typeof allowUnspecified !== 'boolean') {
      throw new TypeError(
        `PermissionConfig.allowUnspecified must be true or false, got ${JSON.stringify(allowUnspecified) ?? String(allowUnspecified)} (${typeof allowUnspecified}).`,
      );
    }
    this.config = Object.freeze({ allowed, denied, allowUnspecified });
    this.allowedSet = new Set(allowed);
    this.deniedSet = new Set(denied);
  }

  /** A checker that allows everything (no list, `allowUnspecified: true`). */
  static allowAll(): PermissionChecker {
    return new PermissionChecker({ allowed: [], denied: [], allowUnspecified: true });
  }

  /**
   * The declared permissions that the policy refuses, in their order (`[]` when all pass).
   * An empty declaration is decided by `allowUnspecified`, which `isAllowed` reports. Never throws.
   */
  refused(permissions: readonly Permission[]): Permission[] {
    if (!Array.isArray(permissions)) return [];
    return permissions.filter((permission) => !this.allows(permission));
  }

  /**
   * Whether a tool with these permissions may run. Accepts `(toolName, permissions)` like
   * `check`, or just `(permissions)`. Never throws.
   */
  isAllowed(toolName: string, permissions: readonly Permission[]): boolean;
  isAllowed(permissions: readonly Permission[]): boolean;
  isAllowed(
    toolNameOrPermissions: string | readonly Permission[],
    permissions?: readonly Permission[],
  ): boolean {
    const list: unknown =
      typeof toolNameOrPermissions === 'string' ? (permissions ?? []) : toolNameOrPermissions;
    return this.decide(list);
  }

  /**
   * Checks a tool's permissions.
   *
   * @throws {ToolError} code `permission_denied`, naming the tool and every refused permission.
   */
  check(toolName: string, permissions: readonly Permission[]): void {
    if (this.decide(permissions)) return;
    if (!Array.isArray(permissions)) {
      throw new ToolError(
        'permission_denied',
        `Permission denied: tool '${toolName}' declares requiredPermissions ${describeThrown(permissions)}, which is not an array of permissions. Declare an array such as ['read'].`,
        { toolName },
      );
    }
    const refused = this.refused(permissions);
    const message =
      refused.length === 0
        ? `Permission denied: tool '${toolName}' declares no permission and this policy refuses such tools (allowUnspecified is false). Declare the tool's permissions, or allow unspecified tools.`
        : `Permission denied: tool '${toolName}' needs ${refused.map((p) => `'${p}'`).join(', ')}, which this policy refuses${this.reasonFor(refused)}. Change the PermissionConfig (allowed/denied) if the tool should run.`;
    throw new ToolError('permission_denied', message, { toolName });
  }

  private decide(list: unknown): boolean {
    // Fail closed: a declaration that is not an array (a string is not spread into letters).
    if (!Array.isArray(list)) return false;
    if (list.length === 0) return this.config.allowUnspecified;
    for (const permission of list) {
      if (!this.allows(permission)) return false;
    }
    return true;
  }

  private allows(permission: Permission): boolean {
    // Fail closed: 'Shell' or 'shell ' is not 'shell', and is refused even by a deny-list.
    if (!isPermission(permission)) return false;
    if (this.deniedSet.has(permission)) return false;
    if (this.allowedSet.has(permission)) return true;
    if (this.allowedSet.size > 0) return false;
    return this.config.allowUnspecified;
  }

  private reasonFor(refused: readonly Permission[]): string {
    const unknown = refused.filter((p) => !isPermission(p));
    const denied = refused.filter((p) => isPermission(p) && this.deniedSet.has(p));
    const notAllowed = refused.filter((p) => isPermission(p) && !this.deniedSet.has(p));
    const parts: string[] = [];
    if (unknown.length > 0) {
      parts.push(
        `${unknown.map((p) => JSON.stringify(p)).join(', ')} not a permission (built-ins are lower case; custom ones start with 'custom:')`,
      );
    }
    if (denied.length > 0) parts.push(`${denied.join(', ')} denied`);
    if (notAllowed.length > 0) {
      parts.push(
        this.allowedSet.size > 0
          ? `${notAllowed.join(', ')} not in the allow-list [${[...this.allowedSet].join(', ')}]`
          : `${notAllowed.join(', ')} unspecified and allowUnspecified is false`,
      );
    }
    return ` (${parts.join('; ')})`;
  }
}

function readList(
  config: Partial<PermissionConfig>,
  field: 'allowed' | 'denied',
): readonly Permission[] {
  const list: unknown = config[field] ?? defaultPermissionConfig[field];
  if (!Array.isArray(list)) {
    throw new TypeError(
      `PermissionConfig.${field} must be an array of permissions, got ${describeThrown(list)}.`,
    );
  }
  list.forEach((item: unknown, index) => {
    if (!isPermission(item)) {
      throw new TypeError(
        `PermissionConfig.${field}[${index}] is ${typeof item === 'string' ? JSON.stringify(item) : describeThrown(item)}, which is not a permission: use a lower-case built-in ('read', 'write', 'delete', 'network', 'shell', 'filesystem') or Permission.custom(name).`,
      );
    }
  });
  return Object.freeze([...list] as Permission[]);
}
