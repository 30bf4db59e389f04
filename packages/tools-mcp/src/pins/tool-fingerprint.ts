import { createHash } from 'node:crypto';
import { canonicalJson } from '@agcore/tools-core';
import type { McpToolInfo } from '../types.js';

/**
 * The fingerprint of a tool's definition: SHA-256 (hex) of its title, description, input and
 * output schemas and annotations as canonical JSON (tools-core's `canonicalJson`: object keys
 * sorted), so that the same definition sent with its keys in another order keeps its
 * fingerprint. Never throws.
 */
export function toolFingerprint(tool: McpToolInfo): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
      }),
    )
    .digest('hex');
}
