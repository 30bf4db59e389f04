import type { PermissionConfig } from '@agcore/tools-permission';
import { allBundledServers } from '../core/bundled-servers.js';
import { type Terminal, wrap } from '../core/output.js';
import { describePolicy } from '../core/policy.js';
import { PlaygroundSession } from '../core/session.js';
import { listTools, renderToolTable } from './tool-listing.js';

/** The bundled servers `tools`, `call` and `chat` start (the list lives in the shared core). */
export { allBundledServers };

/** Options of `tools`. */
export interface ToolsCommandOptions {
  readonly terminal: Terminal;
  readonly json: boolean;
  readonly policy: PermissionConfig;
  readonly mcpConfigPath?: string;
}

/**
 * `agcore-playground tools`: starts every server, lists every tool with its source,
 * permissions (and where they came from), whether the policy allows it, and a schema summary.
 *
 * @throws {PlaygroundError} when a server does not start or mcp.json is malformed.
 */
export async function toolsCommand(options: ToolsCommandOptions): Promise<number> {
  const session = await PlaygroundSession.open({
    servers: allBundledServers,
    policy: options.policy,
    ...(options.mcpConfigPath === undefined ? {} : { mcpConfigPath: options.mcpConfigPath }),
  });
  try {
    const tools = listTools(session);
    const { terminal } = options;
    if (options.json) {
      for (const tool of tools) terminal.out.write(`${JSON.stringify(tool)}\n`);
      return 0;
    }
    const c = terminal.colors;
    // Categories are `built-in` and `mcp:SERVER`, the sources the listing shows.
    const bySource = [...session.registry.groups()].map(
      ([category, entries]) => `${entries.length} ${category}`,
    );
    terminal.out.write(`${c.bold(`${tools.length} tools`)} ${c.dim(`(${bySource.join(', ')})`)}\n`);
    terminal.out.write(
      `${c.dim(wrap(`policy: ${describePolicy(options.policy)}`, terminal.columns, '  '))}\n`,
    );
    terminal.out.write(`${renderToolTable(tools, c, terminal.columns)}\n`);
    terminal.out.write(
      `${c.dim(wrap('MCP tools get permissions from their annotations (readOnlyHint → read; otherwise write, plus delete unless destructiveHint is false; network unless openWorldHint is false). Call one with: call NAME \'{"arg": 1}\'', terminal.columns))}\n`,
    );
    return 0;
  } finally {
    await session.close();
  }
}
