import type { Permission } from '@agcore/tools-core';

/** The behaviour hints an MCP server gives for a tool (all optional, all untrusted). */
export interface McpToolAnnotations {
  /** A human-readable title. */
  readonly title?: string;
  /** The tool does not change its environment. Spec default: false. */
  readonly readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data (meaningful when not read-only). Spec default: true. */
  readonly destructiveHint?: boolean;
  /** Calling it twice with the same arguments has no further effect. Spec default: false. */
  readonly idempotentHint?: boolean;
  /** The tool talks to an open world (the web, other systems). Spec default: true. */
  readonly openWorldHint?: boolean;
}

/**
 * Permissions to require per server: one list for every tool of the server, or a list per
 * MCP tool name (tools not named keep the permissions derived from their annotations).
 */
export type McpPermissionOverrides =
  | readonly Permission[]
  | { readonly [mcpToolName: string]: readonly Permission[] };

/**
 * Derives the permissions an MCP tool needs from its annotations, reading absent hints with
 * the spec's defaults, so that a tool that declares nothing needs the most:
 *
 * | annotations | permissions |
 * |---|---|
 * | `readOnlyHint: true` | `read` |
 * | not read-only, `destructiveHint` true or absent | `write`, `delete` |
 * | not read-only, `destructiveHint: false` | `write` |
 * | `openWorldHint` true or absent | adds `network` |
 * | nothing declared | `write`, `delete`, `network` |
 *
 * Never throws.
 */
export function permissionsFromAnnotations(
  annotations: McpToolAnnotations | undefined,
): Permission[] {
  const permissions: Permission[] = [];
  if (annotations?.readOnlyHint === true) {
    permissions.push('read');
  } else {
    permissions.push('write');
    if (annotations?.destructiveHint !== false) permissions.push('delete');
  }
  if (annotations?.openWorldHint !== false) permissions.push('network');
  return permissions;
}

/**
 * The permissions of one MCP tool: the override for it when there is one, else the derived
 * ones. Never throws.
 */
export function resolvePermissions(
  mcpName: string,
  annotations: McpToolAnnotations | undefined,
  overrides: McpPermissionOverrides | undefined,
): Permission[] {
  if (overrides !== undefined) {
    if (isPermissionList(overrides)) return [...overrides];
    if (Object.hasOwn(overrides, mcpName)) {
      const listed = overrides[mcpName];
      if (listed !== undefined) return [...listed];
    }
  }
  return permissionsFromAnnotations(annotations);
}

function isPermissionList(overrides: McpPermissionOverrides): overrides is readonly Permission[] {
  return Array.isArray(overrides);
}
