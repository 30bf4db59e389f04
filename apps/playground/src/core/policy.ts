import { isPermission, type Permission } from '@agcore/tools-core';
import { defaultPermissionConfig, type PermissionConfig } from '@agcore/tools-permission';
import { PlaygroundError } from './playground-error.js';

/**
 * Splits `--allow`/`--deny` values ("write,delete" or repeated flags) into permissions.
 *
 * @throws {PlaygroundError} naming the value that is not a permission.
 */
export function parsePermissionList(values: readonly string[], flag: string): Permission[] {
  const result: Permission[] = [];
  for (const value of values.flatMap((item) => item.split(','))) {
    const name = value.trim();
    if (name === '') continue;
    if (!isPermission(name)) {
      throw new PlaygroundError(
        `${flag} ${name}: not a permission. Use read, write, delete, network, shell, filesystem or custom:NAME.`,
      );
    }
    result.push(name);
  }
  return result;
}

/**
 * The policy in force: the default (`allowed: read, network`, `denied: delete, shell`, tools
 * that declare nothing allowed), then `--allow` adds to the allow-list and lifts a denial,
 * and `--deny` denies (beating `--allow` for the same permission).
 */
export function buildPolicy(
  allow: readonly Permission[],
  deny: readonly Permission[],
): PermissionConfig {
  const allowed = new Set<Permission>(defaultPermissionConfig.allowed);
  const denied = new Set<Permission>(defaultPermissionConfig.denied);
  for (const permission of allow) {
    allowed.add(permission);
    denied.delete(permission);
  }
  for (const permission of deny) {
    denied.add(permission);
    allowed.delete(permission);
  }
  return {
    allowed: [...allowed],
    denied: [...denied],
    allowUnspecified: defaultPermissionConfig.allowUnspecified,
  };
}

/** The policy in one line: `allow read, network · deny delete, shell`. Never throws. */
export function describePolicy(policy: PermissionConfig): string {
  const list = (items: readonly string[]) => (items.length === 0 ? '(none)' : items.join(', '));
  return `allow ${list(policy.allowed)} · deny ${list(policy.denied)} · tools declaring nothing: ${policy.allowUnspecified ? 'allowed' : 'refused'}`;
}

/**
 * The policy of a flow that allows `extra` on top of `policy` (a flow whose tool a person
 * guards instead), except what the user denied with `--deny`, which always wins.
 */
export function allowForFlow(
  policy: PermissionConfig,
  extra: readonly Permission[],
  explicitDeny: readonly Permission[],
): PermissionConfig {
  const lifted = extra.filter((permission) => !explicitDeny.includes(permission));
  if (lifted.length === 0) return policy;
  return {
    allowed: [...new Set([...policy.allowed, ...lifted])],
    denied: policy.denied.filter((permission) => !lifted.includes(permission)),
    allowUnspecified: policy.allowUnspecified,
  };
}
