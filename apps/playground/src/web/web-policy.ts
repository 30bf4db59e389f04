import { isPermission, type Permission } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import { BadRequest } from './responses.js';

/** The most permissions one list of an edited policy may hold. */
const maxListed = 64;

/**
 * The policy a `POST /api/policy` body gives: `{ allowed: string[], denied: string[],
 * allowUnspecified: boolean }`, each entry a permission (`read`, ..., `custom:NAME`).
 * @throws {BadRequest} 400 naming the field or the entry that is not one
 */
export function policyOfBody(body: Record<string, unknown>): PermissionConfig {
  const list = (field: 'allowed' | 'denied'): Permission[] => {
    const value = body[field];
    if (!Array.isArray(value) || value.length > maxListed) {
      throw new BadRequest(400, `${field} must be a list of at most ${maxListed} permissions.`);
    }
    for (const item of value) {
      if (typeof item !== 'string' || !isPermission(item)) {
        throw new BadRequest(
          400,
          `${field}: ${JSON.stringify(item)?.slice(0, 80)} is not a permission (read, write, delete, network, shell, filesystem or custom:NAME).`,
        );
      }
    }
    return [...new Set(value as Permission[])];
  };
  const allowed = list('allowed');
  const denied = list('denied');
  const both = allowed.filter((permission) => denied.includes(permission));
  if (both.length > 0) {
    throw new BadRequest(400, `${both.join(', ')}: both allowed and denied; choose one.`);
  }
  if (typeof body.allowUnspecified !== 'boolean') {
    throw new BadRequest(400, 'allowUnspecified must be true or false.');
  }
  return { allowed, denied, allowUnspecified: body.allowUnspecified };
}

/**
 * What a flow's own `allow` may not lift: `--deny`'s permissions and those the person denied
 * on the page that the launch's policy did not deny (the flows lift the default denials so a
 * person can guard the call instead; a denial the person chose is meant).
 */
export function explicitDenials(
  launch: PermissionConfig,
  edited: PermissionConfig,
  deny: readonly Permission[],
): Permission[] {
  const chosen = edited.denied.filter((permission) => !launch.denied.includes(permission));
  return [...new Set([...deny, ...chosen])];
}
