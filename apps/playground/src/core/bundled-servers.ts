import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { McpPermissionOverrides } from '@agcore/tools-mcp';
import { PlaygroundError } from './playground-error.js';

const require = createRequire(import.meta.url);

/** The MCP servers from npm that the playground ships with and starts itself. */
export type BundledServer = 'everything' | 'filesystem';

/** Every bundled server: what `tools`, `call`, `chat` and the page's chat start. */
export const allBundledServers: readonly BundledServer[] = ['everything', 'filesystem'];

const packages: Readonly<Record<BundledServer, string>> = {
  everything: '@modelcontextprotocol/server-everything',
  filesystem: '@modelcontextprotocol/server-filesystem',
};

/**
 * The absolute path of a bundled server's entry script (its `bin`), resolved from the
 * installed package, so it runs as `node <path>` without npx or the network.
 *
 * @throws {PlaygroundError} when the package is not installed or has no bin.
 */
export function bundledServerEntry(server: BundledServer): string {
  const name = packages[server];
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${name}/package.json`);
  } catch (error) {
    throw new PlaygroundError(
      `The MCP server package ${name} is not installed; run \`pnpm install\` at the repository root.`,
      { cause: error },
    );
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) {
    throw new PlaygroundError(`The MCP server package ${name} declares no bin entry.`);
  }
  return path.resolve(path.dirname(manifestPath), bin);
}

/**
 * Permissions for server-filesystem's mutating tools. Its annotations say `destructiveHint:
 * true` for write_file/edit_file (so `write` + `delete` by the derived mapping), but they only
 * create or change files inside the allowed directory: the playground maps them to `write`,
 * so `--allow write` lets them through while `move_file` keeps needing `delete` too.
 */
const filesystemPermissions: McpPermissionOverrides = {
  write_file: ['write'],
  edit_file: ['write'],
  create_directory: ['write'],
};

/** A bundled server as an entry of the standard `mcpServers` JSON. */
export interface BundledServerConfig {
  /** `node`, the running binary. */
  readonly command: string;
  /** The server's entry script and its arguments. */
  readonly args: readonly string[];
  /** Permission overrides (otherwise derived from the tools' annotations). */
  readonly permissions?: McpPermissionOverrides;
}

/**
 * How to start a bundled server, as a `mcpServers` entry: server-everything over stdio, and
 * server-filesystem on the sandbox with `write` for the tools that only write inside it.
 *
 * @throws {PlaygroundError} when the package is not installed or has no bin.
 */
export function bundledServerConfig(
  server: BundledServer,
  sandboxDir: string,
): BundledServerConfig {
  const entry = bundledServerEntry(server);
  return server === 'everything'
    ? { command: process.execPath, args: [entry, 'stdio'] }
    : {
        command: process.execPath,
        args: [entry, sandboxDir],
        permissions: filesystemPermissions,
      };
}
