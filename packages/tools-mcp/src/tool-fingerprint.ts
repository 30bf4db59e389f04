import { createHash } from 'node:crypto';
import type { McpToolInfo } from './types.js';

/**
 * The fingerprint of a tool's definition: SHA-256 (hex) of its title, description, input and
 * output schemas and annotations as canonical JSON (object keys sorted), so that the same
 * definition sent with its keys in another order keeps its fingerprint. Never throws.
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

/** Stands for a piece of output text on the work stack of `canonicalJson`. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted and `undefined` members left out, written without recursion:
 * a schema nested 100 000 levels deep (a server can send one) cannot overflow the stack.
 * For JSON data (what a server sends); never throws for it.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Text) {
      out.push(item.text);
      continue;
    }
    if (item === null || typeof item !== 'object') {
      out.push(JSON.stringify(item) ?? 'null');
      continue;
    }
    if (Array.isArray(item)) {
      out.push('[');
      stack.push(new Text(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        stack.push(item[index] === undefined ? null : item[index]);
        if (index > 0) stack.push(new Text(','));
      }
      continue;
    }
    const record = item as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    out.push('{');
    stack.push(new Text('}'));
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      stack.push(record[key]);
      stack.push(new Text(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
    }
  }
  return out.join('');
}
