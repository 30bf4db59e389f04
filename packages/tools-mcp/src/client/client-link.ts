import { ToolError } from '@agcore/tools-core';
import type { ConnectionSettings, EngineConnection, OfferingChange } from '../engines/engine.js';
import { openEngine } from '../engines/engine-loader.js';
import { unavailableError } from '../engines/error-mapping.js';
import { McpToolError } from '../mcp-tool-error.js';
import type { McpAutoReconnectOptions } from '../types.js';
import { reconnectWithBackoff } from './reconnect.js';

/** What the link tells its client. */
export interface LinkEvents {
  /** A new connection is current, or none is (`undefined`): per-connection state must go. */
  changed(connection: EngineConnection | undefined): void;
  /** The current connection's server said its tools changed. */
  toolsChanged(connection: EngineConnection): void;
  /** A failure no request can be rejected with. */
  report(error: unknown): void;
  /** The current connection's server said its resources or prompts changed. */
  offeringChanged(connection: EngineConnection, change: OfferingChange): void;
}

/**
 * Which connection a client uses, through its life: idle, connected, lost (until
 * `reconnect()`, or reconnecting by itself with `autoReconnect`), closed. Concurrent
 * `connect()`s share one attempt; `close()` wins over an attempt still under way.
 */
export class ClientLink {
  /** The live connection, while connected. */
  current: EngineConnection | undefined;
  private state: 'idle' | 'connected' | 'lost' | 'closed' = 'idle';
  private opening: Promise<EngineConnection> | undefined;
  private closing: Promise<void> | undefined;
  private lostError: McpToolError | undefined;
  /** Incremented by `close()`: an attempt that started before it must not connect. */
  private epoch = 0;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly autoReconnect: boolean | McpAutoReconnectOptions | undefined,
    private readonly events: LinkEvents,
  ) {}

  get isConnected(): boolean {
    return this.state === 'connected';
  }

  /** See `McpClient.connect()`. */
  async connect(): Promise<void> {
    if (this.state === 'connected') return;
    if (this.opening !== undefined) {
      await this.opening;
      return;
    }
    if (this.closing !== undefined) await this.closing;
    const opening = this.open();
    this.opening = opening;
    try {
      await opening;
    } finally {
      if (this.opening === opening) this.opening = undefined;
    }
  }

  /** See `McpClient.close()`. Never throws. */
  async close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.epoch++;
    this.state = 'closed';
    this.lostError = undefined;
    const connection = this.current;
    this.current = undefined;
    this.events.changed(undefined);
    if (connection === undefined) return;
    const closing = connection.shutdown();
    this.closing = closing;
    try {
      await closing;
    } finally {
      this.closing = undefined;
    }
  }

  /**
   * The connection to send a request on: the current one, or the one being opened.
   *
   * @throws {McpToolError} `mcp_not_initialized` before `connect()` or after `close()`;
   *   `mcp_error` when the server was lost (until `reconnect()`) or could not reconnect.
   */
  async ready(toolName: string | undefined): Promise<EngineConnection> {
    if (this.current !== undefined) return this.current;
    const { serverName } = this.settings;
    if (this.opening !== undefined) {
      try {
        return await this.opening;
      } catch (error) {
        if (ToolError.isInstance(error)) throw error;
        throw new McpToolError('mcp_error', `MCP server '${serverName}' could not reconnect.`, {
          serverName,
          cause: error,
        });
      }
    }
    if (this.state === 'lost' && this.lostError !== undefined) {
      throw unavailableError(serverName, this.lostError, toolName);
    }
    throw new McpToolError(
      'mcp_not_initialized',
      this.state === 'closed'
        ? `MCP client '${serverName}' is closed: call connect() to open it again.`
        : `MCP client '${serverName}' is not connected: call connect() first.`,
      { serverName, ...(toolName === undefined ? {} : { toolName }) },
    );
  }

  private async open(): Promise<EngineConnection> {
    const epoch = this.epoch;
    const connection = await openEngine(this.settings, {
      lost: (lost, error) => this.handleLoss(lost, error),
      toolsChanged: (changed) => {
        if (changed === this.current) this.events.toolsChanged(changed);
      },
      report: (error) => this.events.report(error),
      offeringChanged: (changed, change) => {
        if (changed === this.current) this.events.offeringChanged(changed, change);
      },
    });
    if (epoch !== this.epoch) {
      await connection.shutdown();
      throw new McpToolError(
        'mcp_error',
        `MCP client '${this.settings.serverName}' was closed while it was connecting.`,
        { serverName: this.settings.serverName },
      );
    }
    this.current = connection;
    this.state = 'connected';
    this.lostError = undefined;
    this.events.changed(connection);
    return connection;
  }

  private handleLoss(connection: EngineConnection, error: McpToolError): void {
    if (connection !== this.current) return;
    this.current = undefined;
    this.state = 'lost';
    this.lostError = error;
    this.events.changed(undefined);
    const auto = this.autoReconnect;
    if (auto === undefined || auto === false) return;
    const epoch = this.epoch;
    const opening = reconnectWithBackoff(
      this.settings.serverName,
      auto === true ? {} : auto,
      () => this.open(),
      () => epoch !== this.epoch,
    ).catch((failed: unknown) => {
      if (epoch === this.epoch && failed instanceof McpToolError) this.lostError = failed;
      throw failed;
    });
    this.opening = opening;
    opening.then(
      () => {
        if (this.opening === opening) this.opening = undefined;
      },
      (failed: unknown) => {
        if (this.opening === opening) this.opening = undefined;
        this.events.report(failed);
      },
    );
  }
}
