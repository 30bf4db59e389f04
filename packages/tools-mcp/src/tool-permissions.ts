import { isPermission, type Permission } from '@agcore/tools-core';

/**
 * The behaviour hints an MCP server gives for a tool (all optional). The MCP specification
 * calls them untrusted: they decide permissions only for a server the application trusts
 * (`trustAnnotations`).
 */
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
 * Whether a call of an MCP tool needs a person's approval, from its annotations: a tool not
 * hinted read-only, or hinted destructive (even beside `readOnlyHint`: contradictory hints get
 * the careful reading), needs approval; a tool that declares nothing needs it.
 *
 * | annotations | needsApproval |
 * |---|---|
 * | `readOnlyHint: true` (and not `destructiveHint: true`) | `false` |
 * | `readOnlyHint: true, destructiveHint: true` | `true` |
 * | not read-only (`destructiveHint` any) | `true` |
 * | nothing declared | `true` |
 *
 * Never throws.
 */
export function needsApprovalFromAnnotations(annotations: McpToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint !== true || annotations.destructiveHint === true;
}

/**
 * The permissions of one MCP tool: the override for it when there is one, else those derived
 * from its annotations when the server is trusted (`trustAnnotations`), else the most an MCP
 * tool can need: `write`, `delete`, `network`. Never throws.
 */
export function resolvePermissions(
  mcpName: string,
  annotations: McpToolAnnotations | undefined,
  overrides: McpPermissionOverrides | undefined,
  trustAnnotations = true,
): Permission[] {
  if (overrides !== undefined) {
    if (isPermissionList(overrides)) return [...overrides];
    if (Object.hasOwn(overrides, mcpName)) {
      const listed = overrides[mcpName];
      if (listed !== undefined) return [...listed];
    }
  }
  return permissionsFromAnnotations(trustAnnotations ? annotations : undefined);
}

/**
 * What is wrong with a permission list from the application (an override), as the end of a
 * sentence ("is empty", "includes 'READ', which is not a permission: ..."), or `undefined`
 * when it is a non-empty list of permissions (tools-core's `isPermission`). Never throws.
 */
export function permissionListProblem(list: unknown): string | undefined {
  if (!Array.isArray(list)) return `is ${shown(list)}, not a list of permissions`;
  if (list.length === 0) {
    return 'is empty: give at least one permission (such as "read"), since a tool that requires nothing would pass any checker that allows unspecified tools';
  }
  // Index by index: holes of a sparse array count as `undefined`.
  for (let index = 0; index < list.length; index++) {
    const item: unknown = list[index];
    if (!isPermission(item)) {
      return `includes ${shown(item)}, which is not a permission: use "read", "write", "delete", "network", "shell", "filesystem" or "custom:<name>" (lower case)`;
    }
  }
  return undefined;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return `'${value.slice(0, 100)}'`;
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value)?.slice(0, 100) ?? String(value);
  } catch {
    return typeof value;
  }
}

function isPermissionList(overrides: McpPermissionOverrides): overrides is readonly Permission[] {
  return Array.isArray(overrides);
}
