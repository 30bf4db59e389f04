/** SEP-2575: a tool that needs a client capability the request did not declare is not run. */
import type { McpClientCapability } from '../types.js';

/**
 * The capabilities of `required` that `declared` (the request's `clientCapabilities`) lacks,
 * in the `ClientCapabilities` shape (`{ sampling: {} }`); `undefined` when none is missing.
 */
export function missingCapabilities(
  required: readonly McpClientCapability[] | undefined,
  declared: Readonly<Record<string, unknown>> | undefined,
): Record<string, object> | undefined {
  if (required === undefined || required.length === 0) return undefined;
  const missing: Record<string, object> = {};
  for (const capability of required) {
    const value = declared?.[capability];
    if (typeof value !== 'object' || value === null) missing[capability] = {};
  }
  return Object.keys(missing).length === 0 ? undefined : missing;
}
