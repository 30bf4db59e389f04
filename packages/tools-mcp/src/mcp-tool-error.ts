import { ToolError, type ToolErrorCode } from '@agcore/tools-core';

/** The codes an MCP client failure can carry. */
export type McpErrorCode = Extract<
  ToolErrorCode,
  | 'mcp_error'
  | 'mcp_not_initialized'
  | 'mcp_timeout'
  | 'cancelled'
  | 'execution_failed'
  | 'invalid_arguments'
  | 'permission_denied'
  | 'denied'
  | 'timeout'
  | 'auth_required'
  | 'auth_failed'
>;

/** Options of the `McpToolError` constructor. */
export interface McpToolErrorOptions {
  /** The MCP server the error is about (the name given to `McpClient`). */
  readonly serverName: string;
  /** The tool the error is about, when there is one. */
  readonly toolName?: string;
  /** The server process's exit code, when it exited. */
  readonly exitCode?: number | null;
  /** The signal that ended the server process, when one did. */
  readonly signal?: string | null;
  /** The last lines the server process wrote to stderr (bounded), when there are any. */
  readonly stderr?: string;
  /** The underlying error. */
  readonly cause?: unknown;
  /** Overrides the code's recoverability (a call cut off mid-way is `mcp_error`, recoverable). */
  readonly recoverable?: boolean;
}

/**
 * A `ToolError` raised by the MCP client, with the server it is about and, for a process that
 * died, its exit code, signal and the tail of its stderr. `ToolError.isInstance` and
 * `instanceof ToolError` hold for it, so a registry keeps its code.
 */
export class McpToolError extends ToolError {
  /** The MCP server the error is about. */
  readonly serverName: string;
  /** The server process's exit code, when it exited (`null` when a signal ended it). */
  readonly exitCode?: number | null;
  /** The signal that ended the server process, when one did. */
  readonly signal?: string | null;
  /** The tail of the server's stderr, when it wrote any. */
  readonly stderr?: string;
  private readonly recoverable: boolean | undefined;

  /**
   * Makes an error; the message should name the server and say what to do. The code is one of
   * `McpErrorCode`, or the `ToolErrorCode` a server declared for a failed tool.
   */
  constructor(code: McpErrorCode | ToolErrorCode, message: string, options: McpToolErrorOptions) {
    super(code, message, {
      ...(options.toolName === undefined ? {} : { toolName: options.toolName }),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'ToolError';
    this.serverName = options.serverName;
    if (options.exitCode !== undefined) this.exitCode = options.exitCode;
    if (options.signal !== undefined) this.signal = options.signal;
    if (options.stderr !== undefined && options.stderr !== '') this.stderr = options.stderr;
    this.recoverable = options.recoverable;
  }

  /** As `ToolError.isRecoverable()`, unless the error was made recoverable (or not) itself. */
  override isRecoverable(): boolean {
    return this.recoverable ?? super.isRecoverable();
  }
}
