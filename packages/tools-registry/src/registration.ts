import {
  type AnyTool,
  type BaseTool,
  checkRequiredPermissions,
  describeThrown,
  isToolName,
  ToolError,
} from '@agcore/tools-core';
import type { SchemaCompiler } from '@agcore/tools-core/schema';
import type { RegisteredTool } from './options.js';
import type { ToolMeta } from './tool-entry.js';

function describeName(name: unknown): string {
  return typeof name === 'string' ? JSON.stringify(name) : describeThrown(name);
}

function malformed(name: unknown, problem: string): ToolError {
  const label = typeof name === 'string' ? `tool '${name}'` : 'this tool';
  return new ToolError(
    'invalid_arguments',
    `Cannot register ${label}: ${problem}. A tool needs name, description, parameters and execute.`,
    typeof name === 'string' ? { toolName: name } : {},
  );
}

function readShape(tool: AnyTool): void {
  const candidate = tool as Partial<Record<keyof BaseTool, unknown>> | null | undefined;
  if (typeof candidate !== 'object' || candidate === null) {
    throw malformed(undefined, 'it is not an object');
  }
  const { name } = candidate;
  if (!isToolName(name)) {
    throw new ToolError(
      'invalid_arguments',
      `Cannot register a tool named ${describeName(name)}: a tool name is 1 to 64 ASCII letters, digits, '_' or '-' (^[a-zA-Z0-9_-]{1,64}$, what every major chat API accepts for function names).`,
      typeof name === 'string' ? { toolName: name } : {},
    );
  }
  const problem =
    typeof candidate.description !== 'string'
      ? 'its description is not a string'
      : typeof candidate.parameters !== 'object' ||
          candidate.parameters === null ||
          Array.isArray(candidate.parameters)
        ? 'its parameters are not a JSON Schema object'
        : typeof candidate.execute !== 'function'
          ? 'it has no execute function'
          : undefined;
  if (problem !== undefined) throw malformed(name, problem);
}

/**
 * Checks a tool and makes its entry: the name rule, the shape, a frozen copy of its
 * permissions, and its parameters schema compiled (within the compiler's limits). Reads the
 * tool once; later changes to the tool object change nothing the registry checks.
 *
 * @throws {ToolError} `invalid_arguments` for a malformed tool, a bad name or bad permissions;
 * `other` for a schema beyond the compiler's limits (naming the tool and the limit).
 */
export function prepareEntry(
  tool: AnyTool,
  meta: ToolMeta,
  compiler: SchemaCompiler,
): RegisteredTool {
  try {
    readShape(tool);
    const permissions = checkRequiredPermissions(tool.name, tool.requiredPermissions);
    // An MCP tool says its schema is untrusted; the application's own tools are trusted.
    const trust = tool.schemaTrust ?? 'trusted';
    if (trust !== 'trusted' && trust !== 'untrusted') {
      throw malformed(tool.name, "its schemaTrust is neither 'trusted' nor 'untrusted'");
    }
    const checkArguments = compiler.compile(tool.parameters, tool.name, { trust });
    const tags = meta.tags ?? [];
    if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string')) {
      throw malformed(tool.name, 'its tags are not an array of strings');
    }
    return {
      tool,
      tags: Object.freeze([...tags]),
      category: typeof meta.category === 'string' ? meta.category : 'general',
      ...(typeof meta.version === 'string' ? { version: meta.version } : {}),
      stats: { calls: 0, failures: 0, totalDurationMs: 0, lastDurationMs: undefined },
      permissions,
      checkArguments,
    };
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    throw malformed(undefined, `it cannot be read (${describeThrown(error)})`);
  }
}
