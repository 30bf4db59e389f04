import { createRedactor, type JsonValue, type Redactor } from '@agcore/tools-core';
import type { McpTool, McpToolInfo, McpWarning } from '@agcore/tools-mcp';
import type { PermissionConfig } from '@agcore/tools-permission';
import { auditSecrets } from '../core/audit-log.js';
import { readMcpConfig } from '../core/mcp-config.js';
import { PlaygroundSession } from '../core/session.js';

/** A tool of an MCP server as the page's MCP view shows it. */
export interface InspectedTool {
  /** The name the model sees (`server__tool`), which a call from the form uses. */
  readonly name: string;
  readonly mcpName: string;
  readonly description: string;
  /** The arguments' JSON Schema: what the page builds the form from. */
  readonly parameters: JsonValue;
  /** The server's hints, as listed. */
  readonly annotations: JsonValue;
  /**
   * The permissions the registry checks (derived from the annotations when the tool was
   * registered, or configured): a changed listing does not change them.
   */
  readonly permissions: readonly string[];
  readonly permissionsFrom: 'annotations' | 'override';
  /** Whether the policy in force lets the tool run now. */
  readonly allowed: boolean;
  /** The changes to its definition since it was pinned (the first listing), latest last. */
  readonly changes: readonly { readonly fingerprint: string; readonly message: string }[];
}

/** One server of `--mcp-config` and its tools. */
export interface InspectedServer {
  readonly name: string;
  readonly version?: string;
  readonly tools: readonly InspectedTool[];
}

/** The result of one call from the form: the value, or the error with its code. */
export type FormCallResult =
  | { readonly ok: true; readonly value: JsonValue; readonly durationMs: number }
  | {
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly durationMs: number;
    };

/**
 * The MCP view's own session: the servers of `--mcp-config`, started on the first look and
 * kept until `close()`, their tools listed with annotations, derived permissions and pin
 * changes, callable one at a time from the page's form under the session's policy.
 */
export class McpInspector {
  readonly #configPath: string;
  #policy: PermissionConfig;
  #session: Promise<PlaygroundSession> | undefined;
  readonly #changes = new Map<string, { fingerprint: string; message: string }[]>();
  /** Takes the credentials of `--mcp-config` out of what a call shows. */
  #redact: Redactor = (text) => text;

  /** Nothing starts until `servers()` or `call()`. */
  constructor(configPath: string, policy: PermissionConfig) {
    this.#configPath = configPath;
    this.#policy = policy;
  }

  /**
   * The servers and their tools (listed again, so a changed definition shows up).
   * @throws {PlaygroundError} when `--mcp-config` is bad or a server does not start
   */
  async servers(): Promise<InspectedServer[]> {
    const session = await this.#open();
    const listings = await Promise.allSettled(
      session.clients.map((client) => client.refreshTools()),
    );
    return session.clients.map((client, index) => {
      const listing = listings[index];
      const listed = new Map(
        (listing?.status === 'fulfilled' ? listing.value : []).map((info) => [info.name, info]),
      );
      return {
        name: client.serverName,
        ...(client.serverVersion === undefined ? {} : { version: client.serverVersion.version }),
        tools: session.registry
          .listTools()
          .filter((name) => session.sources.get(name)?.source === client.serverName)
          .map((name) => this.#describe(session, name, listed)),
      };
    });
  }

  /** Calls `tool` with `args` through the session's registry (policy, schema, timeout). */
  async call(tool: string, args: unknown): Promise<FormCallResult> {
    const session = await this.#open();
    const source = session.sources.get(tool)?.source;
    if (source === undefined || source === 'built-in') {
      const message = `No MCP tool ${tool} in --mcp-config's servers.`;
      return { ok: false, code: 'not_found', message, durationMs: 0 };
    }
    const invocation = await session.registry.invoke(tool, args);
    const { output, durationMs } = invocation;
    if (output.ok) {
      const text = this.#redact(JSON.stringify(output.value ?? null));
      return { ok: true, value: JSON.parse(text) as JsonValue, durationMs };
    }
    const message = this.#redact(output.error.message);
    return { ok: false, code: output.error.code, message, durationMs };
  }

  /** Puts `policy` in force for later calls. Never throws. */
  setPolicy(policy: PermissionConfig): void {
    this.#policy = policy;
    void this.#session?.then((session) => session.setPolicy(policy)).catch(() => {});
  }

  /** Stops the servers. Never rejects. */
  async close(): Promise<void> {
    const session = await this.#session?.catch(() => undefined);
    await session?.close();
  }

  #open(): Promise<PlaygroundSession> {
    this.#session ??= (async () => {
      const mcpConfig = await readMcpConfig(this.#configPath);
      this.#redact = createRedactor(
        auditSecrets({ mcpServers: mcpConfig.servers, redactEnv: [], environment: process.env }),
      );
      return PlaygroundSession.open({
        servers: [],
        mcpConfig,
        policy: this.#policy,
        onWarning: (warning) => this.#warned(warning),
      });
    })();
    // A session that failed to start is tried again on the next look.
    this.#session.catch(() => {
      this.#session = undefined;
    });
    return this.#session;
  }

  #warned(warning: McpWarning): void {
    if (warning.kind !== 'tool_changed') return;
    const key = `${warning.serverName}\u0000${warning.previousToolName}`;
    const list = this.#changes.get(key) ?? [];
    list.push({ fingerprint: warning.fingerprint, message: warning.message });
    this.#changes.set(key, list);
  }

  /** A registered tool, its definition as the latest listing has it (the registered one if unlisted). */
  #describe(
    session: PlaygroundSession,
    name: string,
    listed: ReadonlyMap<string, McpToolInfo>,
  ): InspectedTool {
    const tool = session.registry.get(name) as McpTool | undefined;
    const source = session.sources.get(name);
    const info = listed.get(source?.mcpName ?? '');
    const permissions = session.permissionsOf(name);
    return {
      name,
      mcpName: source?.mcpName ?? name,
      description: info?.description ?? tool?.description ?? '',
      parameters: (info?.inputSchema ?? tool?.parameters ?? {}) as JsonValue,
      annotations: (info?.annotations ?? tool?.annotations ?? {}) as JsonValue,
      permissions,
      permissionsFrom: source?.permissionsFrom ?? 'annotations',
      allowed: session.checker.isAllowed(permissions),
      changes: this.#changes.get(`${tool?.serverName}\u0000${source?.mcpName}`) ?? [],
    };
  }
}
