import { auditCopy } from './audit-copy.js';
import type { RegisteredTool, RegistryView } from './options.js';
import { emitProcessWarning } from './process-warning.js';
import type { ToolInvocation } from './tool-invocation.js';

/**
 * Hands a settled invocation to the registry's `onInvocation` hook as its own deep-frozen copy
 * (`auditCopy`: whatever the hook writes, the caller, the model and the events read what the
 * tool gave; no copy is made without a hook). A throw, or a promise that rejects, goes to
 * `onInvocationError`, or else to one warning per registry. A returned promise is never
 * awaited. Never throws.
 */
export function reportInvocation(
  registry: RegistryView,
  invocation: ToolInvocation,
  entry: RegisteredTool | undefined,
): void {
  const hook = registry.options.onInvocation;
  if (hook === undefined) return;
  const record = auditCopy(invocation);
  let returned: unknown;
  try {
    returned = hook(record, entry);
  } catch (error) {
    hookFailed(registry, error, record);
    return;
  }
  if ((typeof returned !== 'object' && typeof returned !== 'function') || returned === null) return;
  // Promise.resolve adopts any thenable; a throwing `then` getter becomes a rejection.
  Promise.resolve(returned).then(undefined, (error: unknown) =>
    hookFailed(registry, error, record),
  );
}

function hookFailed(registry: RegistryView, error: unknown, invocation: ToolInvocation): void {
  const handler = registry.options.onInvocationError;
  if (handler !== undefined) {
    try {
      handler(error, invocation);
      return;
    } catch {
      // Reported below instead, once.
    }
  }
  if (registry.warnedAboutAudit) return;
  registry.warnedAboutAudit = true;
  emitProcessWarning(
    `ToolRegistry: the onInvocation hook failed for tool '${invocation.toolName}' (${reasonOf(error)}); the call's outcome is unchanged. Later failures of this registry's hook are not reported: pass onInvocationError to see each one.`,
    'AGCORE_ON_INVOCATION_FAILED',
  );
}

function reasonOf(error: unknown): string {
  try {
    const text = error instanceof Error ? String(error.message) : String(error);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return 'an error that cannot be read';
  }
}
