/**
 * Emits a Node.js process warning (`process.emitWarning`, type `AgcoreWarning`) where the
 * runtime has one; elsewhere (a browser, an edge runtime) and when emitting throws, nothing
 * happens. The registry's one way to say something no caller can be told. Never throws.
 */
export function emitProcessWarning(message: string, code: string): void {
  const warn = (
    globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }
  ).process?.emitWarning;
  if (typeof warn !== 'function') return;
  try {
    warn(message, { code, type: 'AgcoreWarning' });
  } catch {
    // Nothing else can be done for a warning that cannot be emitted.
  }
}

/**
 * A warning handler for the registry's schema compiler: the first unchecked pattern of the
 * registry becomes one process warning (code `AGCORE_SCHEMA_PATTERN_UNCHECKED`); later ones
 * are not reported, so that a registry of many MCP tools does not flood the log.
 */
export function schemaWarningOnce(): (message: string) => void {
  let warned = false;
  return (message) => {
    if (warned) return;
    warned = true;
    emitProcessWarning(
      `ToolRegistry: ${message} Later patterns of this registry left unchecked are not reported.`,
      'AGCORE_SCHEMA_PATTERN_UNCHECKED',
    );
  };
}
