import { createHash } from 'node:crypto';

/** The longest tool name the OpenAI and Anthropic APIs accept. */
export const maxToolNameLength = 64;

/**
 * Makes a name the LLM APIs accept: characters outside `[a-zA-Z0-9_-]` become `_`, and a name
 * longer than 64 characters keeps its first 55 and ends with `_` and 8 hex digits of the
 * SHA-256 of the unsanitised name, so two long names stay apart. Never throws.
 */
export function sanitizeToolName(name: string): string {
  let safe = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (safe === '') safe = 'tool';
  if (safe.length <= maxToolNameLength) return safe;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${safe.slice(0, maxToolNameLength - 9)}_${hash}`;
}

/**
 * The exposed name of an MCP tool: `prefix__tool` when a prefix is given, sanitised and
 * shortened as `sanitizeToolName` does. Never throws.
 */
export function exposedToolName(mcpName: string, prefix: string | undefined): string {
  return sanitizeToolName(prefix === undefined ? mcpName : `${prefix}__${mcpName}`);
}
