import type { AnyTool, Permission } from '@agcore/tools-core';
import {
  type McpClient,
  type McpPermissionOverrides,
  McpServers,
  type McpTool,
  type McpWarning,
} from '@agcore/tools-mcp';
import { PermissionChecker, type PermissionConfig } from '@agcore/tools-permission';
import { ToolRegistry, type ToolRegistryOptions } from '@agcore/tools-registry';
import { createBuiltinTools } from './builtin-tools.js';
import { type BundledServer, bundledServerConfig } from './bundled-servers.js';
import { childPids, isOurChild, signalChildren } from './child-processes.js';
import { type McpConfigFile, mcpConfigError, readMcpConfig } from './mcp-config.js';
import { observedRegistryOptions } from './observability.js';
import { ExitCode, PlaygroundError } from './playground-error.js';
import { createSandbox, type Sandbox } from './sandbox.js';

/** Where a registered tool comes from, for `tools` and `/tools`. */
export interface ToolSource {
  /** `built-in`, or the MCP server's name. */
  readonly source: string;
  /** The MCP tool's own name, for MCP tools. */
  readonly mcpName?: string;
  /** How the permissions were decided, for MCP tools. */
  readonly permissionsFrom?: 'annotations' | 'override';
}

/** What a session starts. */
export interface SessionOptions {
  /** Bundled MCP servers to start. */
  readonly servers: readonly BundledServer[];
  /** A `mcp.json` with more servers (standard `mcpServers` format). */
  readonly mcpConfigPath?: string;
  /** The same, already read with `readMcpConfig` (wins over `mcpConfigPath`). */
  readonly mcpConfig?: McpConfigFile;
  /** The permission policy. */
  readonly policy: PermissionConfig;
  /** Milliseconds to wait for each MCP server's handshake (default 20 000). */
  readonly connectTimeoutMs?: number;
  /** Sees each invocation too (after `--audit`'s hook): the page's audit lines. */
  readonly onInvocation?: ToolRegistryOptions['onInvocation'];
  /** The MCP servers' warnings (a tool whose definition changed from its pin, ...). */
  readonly onWarning?: (warning: McpWarning) => void;
}

/** Sessions opened and not yet closed; what the exit hook cleans up. */
const openSessions = new Set<PlaygroundSession>();
let exitHookInstalled = false;

/**
 * Makes sure no exit path leaves a server or a sandbox behind: a second Ctrl-C, a closed pipe
 * (`| head`), SIGTERM or SIGHUP end the process with `process.exit` while a session may still be
 * open, and nothing can be awaited then. The hook stops what is left synchronously.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    if (openSessions.size === 0) return;
    // A server still in its handshake is not known to its client yet: every child goes.
    const pids = new Set(childPids());
    for (const session of openSessions) {
      for (const pid of session.serverPids()) pids.add(pid);
      session.abandon();
    }
    signalChildren(pids, 'SIGTERM');
  });
}

/**
 * Everything one playground run needs: a sandbox, the built-in tools, the MCP servers (bundled
 * and from `mcp.json`) and a `ToolRegistry` with the permission policy. `close()` stops every
 * server and removes the sandbox.
 */
export class PlaygroundSession {
  /** The registry every tool is in. */
  readonly registry: ToolRegistry;
  #checker: PermissionChecker;
  /** The sandbox directory. */
  readonly sandbox: Sandbox;
  /** Where each tool comes from. */
  readonly sources = new Map<string, ToolSource>();
  #servers: McpServers | undefined;
  #closed: Promise<void> | undefined;
  /** Every stdio server pid seen, so a server that is slow to stop can still be killed. */
  readonly #pids = new Set<number>();

  private constructor(sandbox: Sandbox, options: SessionOptions) {
    this.sandbox = sandbox;
    this.#checker = new PermissionChecker(options.policy);
    this.registry = new ToolRegistry({
      permissionChecker: this.#checker,
      ...withInvocationHook(observedRegistryOptions(), options.onInvocation),
    });
  }

  /**
   * Starts a session. On failure, whatever was started is stopped again.
   *
   * @throws {PlaygroundError} when `mcp.json` is missing or malformed or its tool names clash
   * (exit 2), or an MCP server does not start (exit 1).
   */
  static async open(options: SessionOptions): Promise<PlaygroundSession> {
    const file =
      options.mcpConfig ??
      (options.mcpConfigPath === undefined
        ? undefined
        : await readMcpConfig(options.mcpConfigPath));
    const sandbox = await createSandbox();
    const session = new PlaygroundSession(sandbox, options);
    installExitHook();
    openSessions.add(session);
    try {
      for (const tool of createBuiltinTools({ sandboxDir: sandbox.dir })) {
        session.registry.register(tool, { category: 'built-in' });
        session.sources.set(tool.name, { source: 'built-in' });
      }
      await session.#startServers(options, file);
      return session;
    } catch (error) {
      await session.close();
      throw error;
    }
  }

  /**
   * Starts the bundled servers and those of `mcp.json` through one `McpServers` (parallel
   * connect within the time limit, tools prefixed `server__tool`, name clashes caught). A
   * server of `mcp.json` named like a bundled one that this command starts is left out: the
   * flows rely on the bundled one.
   */
  async #startServers(options: SessionOptions, file: McpConfigFile | undefined): Promise<void> {
    const { table, overrides } = serverTable(options.servers, file, this.sandbox.dir);
    const explain = (error: unknown, hint?: string) =>
      mcpConfigError(file?.path ?? 'mcp.json', error, hint);
    let servers: McpServers;
    try {
      servers = new McpServers(
        { mcpServers: Object.fromEntries(table) },
        {
          connectTimeoutMs: options.connectTimeoutMs ?? 20_000,
          client: {
            clientInfo: { name: 'agcore-playground', version: '0.1.0' },
            ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
          },
        },
      );
    } catch (error) {
      throw explain(error);
    }
    this.#servers = servers;
    const { connected, failed } = await servers.connect();
    this.#rememberPids();
    const failures = [
      ...failed.map((failure) => failure.error.message),
      ...(await listingFailures(servers, connected)),
    ];
    if (failures.length > 0) {
      throw new PlaygroundError(
        `${failures.length === 1 ? 'An MCP server' : `${failures.length} MCP servers`} did not start:\n${failures.map((line) => `  - ${line}`).join('\n')}`,
        { exitCode: ExitCode.failed },
      );
    }
    let tools: McpTool[];
    try {
      tools = await servers.tools();
    } catch (error) {
      throw explain(error, 'Hide one with "blockedTools" in its server entry.');
    }
    for (const tool of tools) this.#registerMcpTool(tool, overrides.get(tool.serverName));
  }

  /** Registers one MCP tool, noting where its permissions come from. */
  #registerMcpTool(tool: McpTool, permissions: McpPermissionOverrides | undefined): void {
    this.registry.register(tool as AnyTool, { category: `mcp:${tool.serverName}` });
    const overridden =
      permissions !== undefined &&
      (Array.isArray(permissions) || Object.hasOwn(permissions, tool.mcpName));
    this.sources.set(tool.name, {
      source: tool.serverName,
      mcpName: tool.mcpName,
      permissionsFrom: overridden ? 'override' : 'annotations',
    });
  }

  /** The clients of the MCP servers, in start order. Never throws. */
  get clients(): McpClient[] {
    const servers = this.#servers;
    if (servers === undefined) return [];
    return servers.names.flatMap((name) => servers.get(name) ?? []);
  }

  /** The permission checker in force. */
  get checker(): PermissionChecker {
    return this.#checker;
  }

  /**
   * Replaces the permission policy (chat's `/allow` and `/deny`).
   *
   * @throws {TypeError} when a list is not an array of permission strings.
   */
  setPolicy(policy: PermissionConfig): void {
    this.#checker = new PermissionChecker(policy);
    this.registry.withPermissionChecker(this.#checker);
  }

  /** The permissions a registered tool declares (`[]` when none). Never throws. */
  permissionsOf(name: string): readonly Permission[] {
    return this.registry.get(name)?.requiredPermissions ?? [];
  }

  /**
   * Process ids of the stdio MCP servers that still run, including one that `close()` is
   * still waiting for (its client no longer reports the pid then). Never throws.
   */
  serverPids(): number[] {
    this.#rememberPids();
    return [...this.#pids].filter(isOurChild);
  }

  #rememberPids(): void {
    for (const client of this.clients) {
      if (client.pid !== undefined) this.#pids.add(client.pid);
    }
  }

  /** Stops every MCP server and removes the sandbox. Safe to call twice; never throws. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.#servers?.close();
      await this.sandbox.remove();
      openSessions.delete(this);
    })();
    return this.#closed;
  }

  /**
   * For a process that exits before `close()` finished: sends SIGTERM to the servers that
   * still run and removes the sandbox, synchronously. Never throws.
   */
  abandon(): void {
    openSessions.delete(this);
    signalChildren(this.serverPids(), 'SIGTERM');
    this.sandbox.removeSync();
  }
}

/** The registry options with `extra` called after the observed hook (each one's own failures apart). */
function withInvocationHook(
  observed: ReturnType<typeof observedRegistryOptions>,
  extra: ToolRegistryOptions['onInvocation'],
): ReturnType<typeof observedRegistryOptions> {
  const first = observed.onInvocation;
  if (extra === undefined) return observed;
  if (first === undefined) return { ...observed, onInvocation: extra };
  return {
    ...observed,
    onInvocation: (invocation, entry) => {
      try {
        void first(invocation, entry);
      } finally {
        void extra(invocation, entry);
      }
    },
  };
}

/**
 * The servers to start: the bundled ones, then those of `mcp.json` not named like a bundled
 * one; with each server's permission overrides.
 */
function serverTable(
  bundled: SessionOptions['servers'],
  file: McpConfigFile | undefined,
  sandboxDir: string,
): {
  table: Map<string, unknown>;
  overrides: Map<string, McpPermissionOverrides | undefined>;
} {
  const table = new Map<string, unknown>();
  const overrides = new Map<string, McpPermissionOverrides | undefined>();
  for (const server of bundled) {
    const config = bundledServerConfig(server, sandboxDir);
    table.set(server, config);
    overrides.set(server, config.permissions);
  }
  for (const entry of file?.entries ?? []) {
    if (table.has(entry.name)) continue;
    table.set(entry.name, file?.servers[entry.name]);
    overrides.set(entry.name, entry.permissions);
  }
  return { table, overrides };
}

/**
 * The reasons of connected servers whose tool listing fails. `tools()` leaves such a server
 * out and tells only `onError` (where stray output of a live server goes too); listing first
 * makes it a start failure with its reason.
 */
async function listingFailures(
  servers: McpServers,
  connected: readonly string[],
): Promise<string[]> {
  const listings = await Promise.allSettled(
    connected.map((name) => servers.get(name)?.listTools()),
  );
  const failures: string[] = [];
  for (const listing of listings) {
    if (listing.status === 'rejected') {
      failures.push(
        listing.reason instanceof Error ? listing.reason.message : String(listing.reason),
      );
    }
  }
  return failures;
}
