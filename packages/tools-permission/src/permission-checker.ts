import { type Permission, ToolError } from '@agcore/tools-core';

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
   * Makes a checker; fields you leave out take the default policy's values.
   *
   * @throws {TypeError} when a list is not an array of strings.
   */
  constructor(config: Partial<PermissionConfig> = {}) {
    const allowed = config.allowed ?? defaultPermissionConfig.allowed;
    const denied = config.denied ?? defaultPermissionConfig.denied;
    for (const [field, list] of [
      ['allowed', allowed],
      ['denied', denied],
    ] as const) {
      if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
        throw new TypeError(`PermissionConfig.${field} must be an array of permission strings.`);
      }
    }
    this.config = Object.freeze({
      allowed: Object.freeze([...allowed]),
      denied: Object.freeze([...denied]),
      allowUnspecified: config.allowUnspecified ?? defaultPermissionConfig.allowUnspecified,
    });
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
    const list =
      typeof toolNameOrPermissions === 'string' ? (permissions ?? []) : toolNameOrPermissions;
    if (list.length === 0) return this.config.allowUnspecified;
    for (const permission of list) {
      if (!this.allows(permission)) return false;
    }
    return true;
  }

  /**
   * Checks a tool's permissions.
   *
   * @throws {ToolError} code `permission_denied`, naming the tool and every refused permission.
   */
  check(toolName: string, permissions: readonly Permission[]): void {
    if (this.isAllowed(permissions)) return;
    const refused = this.refused(permissions);
    const message =
      refused.length === 0
        ? `Permission denied: tool '${toolName}' declares no permission and this policy refuses such tools (allowUnspecified is false). Declare the tool's permissions, or allow unspecified tools.`
        : `Permission denied: tool '${toolName}' needs ${refused.map((p) => `'${p}'`).join(', ')}, which this policy refuses${this.reasonFor(refused)}. Change the PermissionConfig (allowed/denied) if the tool should run.`;
    throw new ToolError('permission_denied', message, { toolName });
  }

  private allows(permission: Permission): boolean {
    if (this.deniedSet.has(permission)) return false;
    if (this.allowedSet.has(permission)) return true;
    if (this.allowedSet.size > 0) return false;
    return this.config.allowUnspecified;
  }

  private reasonFor(refused: readonly Permission[]): string {
    const denied = refused.filter((p) => this.deniedSet.has(p));
    const notAllowed = refused.filter((p) => !this.deniedSet.has(p));
    const parts: string[] = [];
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
