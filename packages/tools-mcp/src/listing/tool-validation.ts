import type { JsonSchema } from '@agcore/tools-core';
import { type Tool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolAnnotations } from '../tool-permissions.js';
import type { McpToolInfo } from '../types.js';

/** A tool of a listing that passed the MCP schema. */
export interface ValidTool {
  readonly info: McpToolInfo;
  /** As the SDK parsed it (what its output validation is given). */
  readonly raw: Tool;
}

/** A tool of a listing that is left out, and why, in one sentence. */
export interface ToolProblem {
  /** Its name, or `#n` (its position) when it has no usable name. */
  readonly toolName: string;
  readonly message: string;
}

/**
 * Checks each tool of a listing on its own against the MCP `Tool` schema, so that one bad tool
 * leaves the others usable. A tool whose name an earlier tool already has is left out too.
 * Never throws.
 */
export function checkTools(
  listed: readonly unknown[],
  serverName: string,
): { readonly valid: ValidTool[]; readonly problems: ToolProblem[] } {
  const valid: ValidTool[] = [];
  const problems: ToolProblem[] = [];
  const names = new Set<string>();
  listed.forEach((item, index) => {
    const name = nameOf(item, index);
    const left = (reason: string): void => {
      problems.push({
        toolName: name,
        message: `MCP server '${serverName}': tool '${name}' is left out of the tool list: ${reason}.`,
      });
    };
    const parsed = ToolSchema.safeParse(item);
    if (!parsed.success) {
      left(describeIssue(parsed.error.issues[0]));
      return;
    }
    if (names.has(parsed.data.name)) {
      left('an earlier tool of the listing has the same name');
      return;
    }
    names.add(parsed.data.name);
    valid.push({ info: toToolInfo(parsed.data), raw: parsed.data });
  });
  return { valid, problems };
}

function nameOf(item: unknown, index: number): string {
  const name =
    typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name.slice(0, 200) : `#${index + 1}`;
}

interface Issue {
  readonly code?: string;
  readonly path?: readonly PropertyKey[];
  readonly message?: string;
  readonly expected?: unknown;
  readonly values?: readonly unknown[];
}

/** One zod issue as the end of an English sentence ("its inputSchema.type must be "object""). */
function describeIssue(issue: Issue | undefined): string {
  if (issue === undefined) return 'it is not a valid MCP tool';
  const path = (issue.path ?? []).map(String).join('.');
  const where = path === '' ? 'it' : `its ${path}`;
  const message = issue.message ?? 'is invalid';
  if (issue.code === 'invalid_type' && /received undefined/.test(message)) {
    return path === '' ? 'it is missing' : `it has no ${path}`;
  }
  if (issue.code === 'invalid_type' && typeof issue.expected === 'string') {
    const received = /received (\w+)/.exec(message)?.[1];
    return `${where} must be ${article(issue.expected)}${received === undefined ? '' : `, not ${article(received)}`}`;
  }
  if (issue.code === 'invalid_value' && issue.values !== undefined) {
    return `${where} must be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
  }
  return `${where}: ${message.replace(/^Invalid input: /, '').replace(/[.\s]+$/, '')}`;
}

function article(type: string): string {
  if (type === 'undefined' || type === 'null') return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function toToolInfo(tool: Tool): McpToolInfo {
  const annotations = tool.annotations;
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as JsonSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
    ...(annotations === undefined ? {} : { annotations: annotations as McpToolAnnotations }),
  };
}
