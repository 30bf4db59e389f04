import { readFile } from 'node:fs/promises';
import { ToolError } from '@agcore/tools-core';
import { type McpServerEntry, parseMcpServersConfig } from '@agcore/tools-mcp';
import { withPlaygroundAuth } from './mcp-auth.js';
import { PlaygroundError } from './playground-error.js';

/**
 * A `mcp.json` that `parseMcpServersConfig` of `@agcore/tools-mcp` accepted. The server table
 * stays as written, so the playground can put its bundled servers next to it and start them
 * all through one `McpServers`.
 */
export interface McpConfigFile {
  /** The file, as given on the command line. */
  readonly path: string;
  /** The `mcpServers` table (or VS Code's `servers`) as written in the file. */
  readonly servers: Readonly<Record<string, unknown>>;
  /** The checked entries (disabled ones left out). */
  readonly entries: readonly McpServerEntry[];
}

/**
 * Turns an `mcp_error` of `@agcore/tools-mcp` about the configuration (a bad entry, two
 * servers or tools that end up with the same name) into a message naming the file (exit 2),
 * with `hint` after it; anything else is returned unchanged. Never throws.
 */
export function mcpConfigError(file: string, error: unknown, hint = ''): unknown {
  if (!ToolError.isInstance(error)) return error;
  // The package's messages start with "MCP configuration," or "MCP configuration:", and name
  // the file itself "server '(config)'"; the file name replaces both.
  const reason = error.message.replace(/^MCP configuration(?:, server '\(config\)')?[,:]\s*/, '');
  return new PlaygroundError(
    `The MCP config ${file} is malformed: ${reason}${hint === '' ? '' : ` ${hint}`}`,
    { cause: error },
  );
}

/**
 * Reads a `mcp.json` in the standard format used by Claude Desktop, Cursor and VS Code and
 * checks it with `parseMcpServersConfig` (which also expands `${env:NAME}` references).
 *
 * @throws {PlaygroundError} (exit 2) when the path is empty, or the file is missing, unreadable,
 * not JSON, or not such a file, saying where.
 */
export async function readMcpConfig(file: string): Promise<McpConfigFile> {
  if (file.trim() === '') {
    throw new PlaygroundError('--mcp-config needs the path of a mcp.json file.');
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reasons: Record<string, string> = {
      ENOENT: 'no such file',
      EISDIR: 'it is a directory; give the path of the JSON file',
      EACCES: 'permission denied',
    };
    const reason =
      (code === undefined ? undefined : reasons[code]) ??
      (error instanceof Error ? error.message : String(error));
    throw new PlaygroundError(`Cannot read the MCP config ${file}: ${reason}.`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PlaygroundError(
      `The MCP config ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`,
      { cause: error },
    );
  }
  let entries: McpServerEntry[];
  try {
    entries = withPlaygroundAuth(parseMcpServersConfig(json));
  } catch (error) {
    throw mcpConfigError(
      file,
      error,
      'Expected {"mcpServers": {"name": {"command": "...", "args": []}}} or {"url": "..."}.',
    );
  }
  // parseMcpServersConfig accepted it, so the root is an object with one of these tables.
  const root = json as { mcpServers?: Record<string, unknown>; servers?: Record<string, unknown> };
  return { path: file, servers: root.mcpServers ?? root.servers ?? {}, entries };
}
