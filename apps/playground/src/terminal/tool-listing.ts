import type { JsonSchema } from '@agcore/tools-core';
import { type Colors, displayWidth, ellipsize, padToWidth } from '../core/output.js';
import type { PlaygroundSession } from '../core/session.js';

/** One tool as `tools` shows it. */
export interface ToolListing {
  readonly name: string;
  readonly source: string;
  readonly mcpName?: string;
  readonly permissions: readonly string[];
  readonly permissionsFrom: 'declared' | 'annotations' | 'override';
  readonly allowed: boolean;
  readonly parameters: string;
  readonly description: string;
  readonly schema: JsonSchema;
}

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((item) => JSON.stringify(item)).join('|');
  const type = schema.type;
  if (Array.isArray(type)) return type.join('|');
  if (
    type === 'array' &&
    typeof schema.items === 'object' &&
    schema.items !== null &&
    !Array.isArray(schema.items)
  ) {
    return `${typeOf(schema.items as JsonSchema)}[]`;
  }
  if (typeof type === 'string') return type;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return 'union';
  return 'any';
}

/**
 * A one-line summary of an arguments schema: `city: string, unit?: "celsius"|"fahrenheit"`
 * (`?` marks optional properties). Never throws.
 */
export function summarizeSchema(schema: JsonSchema): string {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    return '(no arguments)';
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const parts = Object.entries(properties as Record<string, JsonSchema>).map(
    ([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(property)}`,
  );
  return parts.length === 0 ? '(no arguments)' : parts.join(', ');
}

/** Every registered tool with its source, permissions and schema summary. Never throws. */
export function listTools(session: PlaygroundSession): ToolListing[] {
  return session.registry.listTools().map((name) => {
    const tool = session.registry.get(name);
    const source = session.sources.get(name);
    const permissions = session.permissionsOf(name);
    const schema = (tool?.parameters ?? {}) as JsonSchema;
    return {
      name,
      source:
        source?.source === 'built-in' || source === undefined ? 'built-in' : `mcp:${source.source}`,
      ...(source?.mcpName === undefined ? {} : { mcpName: source.mcpName }),
      permissions: [...permissions],
      permissionsFrom: source?.permissionsFrom ?? 'declared',
      allowed: session.checker.isAllowed(name, permissions),
      parameters: summarizeSchema(schema),
      description: tool?.description ?? '',
      schema,
    };
  });
}

/**
 * The listing, fitted to `columns` (80 when not a terminal): per tool a line with its name
 * (never cut: it is what `call` and mcp.json take), the policy verdict and the source, then its
 * permissions and arguments indented below; what does not fit is cut with an ellipsis (`--json` has
 * it all). Never throws.
 */
export function renderToolTable(
  tools: readonly ToolListing[],
  colors: Colors,
  columns: number,
): string {
  const nameWidth = Math.max(4, ...tools.map((tool) => displayWidth(tool.name)));
  const lines = [colors.bold(`${padToWidth('tool', nameWidth)}  policy   source`)];
  const dimmed = colors.dim('permissions · arguments');
  lines.push(`  ${dimmed}`);
  for (const tool of tools) {
    const permissions = tool.permissions.length === 0 ? '(none)' : tool.permissions.join(', ');
    const from = tool.permissionsFrom === 'declared' ? '' : ` (${tool.permissionsFrom})`;
    const verdict = tool.allowed ? colors.green('allowed') : colors.red('refused');
    const source = ellipsize(tool.source, columns - nameWidth - 11);
    lines.push(`${padToWidth(tool.name, nameWidth)}  ${verdict}  ${source}`);
    const details = `${permissions}${from} · ${tool.parameters}`;
    lines.push(colors.dim(`  ${ellipsize(details, columns - 2)}`));
  }
  return lines.join('\n');
}
